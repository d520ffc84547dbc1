/**
 * The path cue's compiler gives an error found at a source position (`internal/core/compile`: the
 * labels of its scope stack). A field's label is part of the path only inside the field's value: a
 * problem in a label (`_: 1`, `_=X: 1`, `[for x in l {x}]: v`) is reported at the struct that
 * declares it. A `let`'s expression adds `let[]`, each `for` clause of a comprehension `for[]` (from
 * its clauses after it on), and struct and list literals inside expressions add nothing of their own.
 */

import type * as ast from "../syntax/ast.js";

/** cue's compile path of the innermost declaration of `file` around `offset`. */
export function compilePathAt(file: ast.File, offset: number): string[] {
  const path: string[] = [];
  decls(file.decls, offset, path);
  return path;
}

/** A field label as cue's compiler names it (`labelString`): interpolations `?`, patterns `[]`. */
export function compileLabel(l: ast.Label): string {
  switch (l.kind) {
    case "Ident":
      return l.name;
    case "String":
      return l.value;
    case "Interpolation":
      return "?";
    case "PatternLabel":
      return "[]";
    case "DynamicLabel":
      return "<unknown>";
    default: {
      const never: never = l;
      return String(never);
    }
  }
}

/**
 * The scope a comprehension clause opens for the clauses and value after it, as cue's compile path
 * names it: `for[]`, `let[]`, `try[]` for a `try` that binds a name; an `if` opens none.
 */
export function clauseScope(cl: ast.Clause): string | undefined {
  switch (cl.kind) {
    case "For":
      return "for[]";
    case "Let":
      return "let[]";
    case "Try":
      return cl.ident === undefined ? undefined : "try[]";
    case "If":
      return undefined;
    default: {
      const never: never = cl;
      return never;
    }
  }
}

function inside(n: { pos: { offset: number }; end: number }, offset: number): boolean {
  return n.pos.offset <= offset && offset < n.end;
}

function decls(ds: readonly ast.Decl[], offset: number, path: string[]): void {
  for (const d of ds) {
    if (!inside(d, offset)) continue;
    switch (d.kind) {
      case "Field":
        if (inside(d.value, offset)) {
          path.push(compileLabel(d.label));
          expr(d.value, offset, path);
        }
        return;
      case "Let":
        if (inside(d.expr, offset)) {
          path.push("let[]");
          expr(d.expr, offset, path);
        }
        return;
      case "Embed":
        expr(d.expr, offset, path);
        return;
      case "Ellipsis":
        if (d.type !== undefined) expr(d.type, offset, path);
        return;
      case "Comprehension":
        comprehension(d, offset, path);
        return;
      default:
        return;
    }
  }
}

function comprehension(c: ast.Comprehension, offset: number, path: string[]): void {
  const at = clauseExprAt(c, offset, path);
  if (at !== undefined) expr(at, offset, path);
}

/** The clause expression or body around `offset`, with the scopes of the clauses before it pushed. */
function clauseExprAt(c: ast.Comprehension, offset: number, path: string[]): ast.Expr | undefined {
  for (const cl of c.clauses) {
    const x = clauseExpr(cl);
    if (x !== undefined && inside(x, offset)) return x;
    const scope = clauseScope(cl);
    if (scope !== undefined) path.push(scope);
  }
  if (inside(c.value, offset)) return c.value;
  return c.fallback !== undefined && inside(c.fallback, offset) ? c.fallback : undefined;
}

/** The expression a clause evaluates (a `for`'s source, a `let`'s value, an `if`'s condition). */
export function clauseExpr(cl: ast.Clause): ast.Expr | undefined {
  switch (cl.kind) {
    case "For":
      return cl.source;
    case "Let":
      return cl.expr;
    case "If":
      return cl.condition;
    case "Try":
      return cl.expr;
    default: {
      const never: never = cl;
      return never;
    }
  }
}

function expr(e: ast.Expr, offset: number, path: string[]): void {
  switch (e.kind) {
    case "Struct":
      decls(e.decls, offset, path);
      return;
    case "List":
      for (const x of e.elems) {
        if (!inside(x, offset)) continue;
        if (x.kind === "Comprehension") comprehension(x, offset, path);
        else expr(x, offset, path);
        return;
      }
      if (e.ellipsis?.type !== undefined) expr(e.ellipsis.type, offset, path);
      return;
    case "Paren":
    case "Alias":
    case "Unary":
    case "Postfix":
      expr(e.expr, offset, path);
      return;
    case "Binary":
      expr(inside(e.left, offset) ? e.left : e.right, offset, path);
      return;
    case "Selector":
      expr(e.expr, offset, path);
      return;
    case "Index":
      expr(inside(e.expr, offset) ? e.expr : e.index, offset, path);
      return;
    case "Slice":
      for (const x of [e.expr, e.low, e.high])
        if (x !== undefined && inside(x, offset)) expr(x, offset, path);
      return;
    case "Call":
      for (const x of [e.fn, ...e.args]) if (inside(x, offset)) expr(x, offset, path);
      return;
    case "Interpolation":
      for (const x of e.parts) if (typeof x !== "string" && inside(x, offset)) expr(x, offset, path);
      return;
    default:
      return;
  }
}
