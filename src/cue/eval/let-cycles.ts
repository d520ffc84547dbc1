/**
 * Let clauses of one struct whose expressions refer to each other in a cycle (`let X = Y` and
 * `let Y = X + 1`): cue's compiler refuses them ("cyclic references in let clause or alias", at
 * the struct's `let[]` and the path below it where the cycle is met), whether or not a field uses
 * them. References inside nested structs, lists and comprehensions count, unless a name declared
 * there shadows the let. A let that nothing in its struct refers to is refused as well
 * ("unreferenced alias or let clause", at the struct).
 */

import type * as ast from "../syntax/ast.js";
import { identLabel } from "../syntax/index.js";
import { clauseExpr, clauseScope, compileLabel } from "./compile-path.js";
import type { CueError } from "./errors.js";
import { unreferencedLets } from "./unused-let.js";

/** The let cycles of a file, one error per struct that has one. */
export function letCycles(file: ast.File): CueError[] {
  const out: CueError[] = [];
  decls(file.decls, [], out);
  return out;
}

function decls(ds: readonly ast.Decl[], path: readonly string[], out: CueError[]): void {
  const lets = new Map<string, ast.Decl & { kind: "Let" }>();
  for (const d of ds) if (d.kind === "Let") lets.set(d.ident.name, d);
  if (lets.size > 0) cycleIn({ decls: ds }, lets, path, out);
  aliasLabelCycles(ds, path, out);
  for (const d of lets.size > 0 ? unreferencedLets(ds, lets.values()) : []) {
    out.push({
      path: [...path],
      code: "eval",
      message: `unreferenced alias or let clause ${d.ident.name}`,
      positions: [{ file: d.pos.file, line: d.pos.line, column: d.pos.column }],
    });
  }
  for (const d of ds) {
    switch (d.kind) {
      case "Field": {
        const name = identLabel(d) ?? (d.label.kind === "String" ? d.label.value : undefined);
        nested(d.value, name === undefined ? path : [...path, name], out);
        break;
      }
      case "Let":
        nested(d.expr, path, out);
        break;
      case "Embed":
        nested(d.expr, path, out);
        break;
      case "Comprehension":
        nested(d.value, path, out);
        break;
      default:
        break;
    }
  }
}

/** Struct literals written directly in an expression (their own lets are checked in turn). */
function nested(e: ast.Expr, path: readonly string[], out: CueError[]): void {
  switch (e.kind) {
    case "Struct":
      decls(e.decls, path, out);
      return;
    case "Paren":
    case "Alias":
      nested(e.expr, path, out);
      return;
    case "Binary":
      nested(e.left, path, out);
      nested(e.right, path, out);
      return;
    default:
      return;
  }
}

/**
 * cue's compiler compiles the label of a field with an alias and a computed label (`Y=(X): v`,
 * `(X)~Y: v`) in declaration order, before the fields themselves: such a label that names its own
 * alias, or the alias of a computed label declared after it, is "cyclic reference in field alias",
 * at the struct.
 */
function aliasLabelCycles(ds: readonly ast.Decl[], path: readonly string[], out: CueError[]): void {
  const pending = new Set<string>();
  for (const d of ds)
    if (d.kind === "Field" && d.alias !== undefined && computed(d.label)) pending.add(d.alias.name);
  if (pending.size === 0) return;
  for (const d of ds) {
    if (d.kind !== "Field" || d.alias === undefined || !computed(d.label)) continue;
    const l = d.label;
    idents(l.kind === "DynamicLabel" ? l.expr : l, (id) => {
      if (!pending.has(id.name)) return;
      out.push({
        path: [...path],
        code: "eval",
        message: "cyclic reference in field alias",
        positions: [{ file: id.pos.file, line: id.pos.line, column: id.pos.column }],
      });
    });
    pending.delete(d.alias.name);
  }
}

function computed(l: ast.Label): l is ast.DynamicLabel | ast.Interpolation {
  return l.kind === "DynamicLabel" || l.kind === "Interpolation";
}

/** The identifiers of an expression outside nested scopes (structs, lists, comprehensions). */
function idents(e: ast.Expr, f: (id: ast.Ident) => void): void {
  switch (e.kind) {
    case "Ident":
      f(e);
      return;
    case "Interpolation":
      for (const p of e.parts) if (typeof p !== "string") idents(p, f);
      return;
    case "Paren":
    case "Unary":
    case "Postfix":
    case "Selector":
      idents(e.expr, f);
      return;
    case "Binary":
      idents(e.left, f);
      idents(e.right, f);
      return;
    case "Index":
      idents(e.expr, f);
      idents(e.index, f);
      return;
    case "Call":
      idents(e.fn, f);
      for (const a of e.args) idents(a, f);
      return;
    default:
      return;
  }
}

/** A reference from a let's expression to a let of the same struct, and cue's path at it. */
interface LetRef {
  readonly to: string;
  readonly id: ast.Ident;
  /** The compile path below the struct: `let[]`, then what is inside the let's expression. */
  readonly at: readonly string[];
}

/**
 * cue's compiler compiles a let's expression where it is first referred to, and again at its
 * declaration; a reference met while that let is still being compiled is the error, at the path
 * of that reference (`let[].c`, `let[].for[].c`). This follows the same order: each let in
 * declaration order, each reference into a let not yet compiled compiling it first.
 */
function cycleIn(
  struct: { readonly decls: readonly ast.Decl[] },
  lets: Map<string, ast.Decl & { kind: "Let" }>,
  path: readonly string[],
  out: CueError[],
): void {
  const refs = new Map<string, LetRef[]>();
  for (const [name, d] of lets) {
    const found: LetRef[] = [];
    letRefs(d.expr, lets, new Set(), ["let[]"], found);
    refs.set(name, found);
  }
  const state = new Map<string, "compiling" | "done">();
  const lookup = (rs: readonly LetRef[]): void => {
    for (const r of rs) {
      const s = state.get(r.to);
      if (s === "done") continue;
      if (s === "compiling") {
        out.push({
          path: [...path, ...r.at],
          code: "eval",
          message: "cyclic references in let clause or alias",
          positions: [{ file: r.id.pos.file, line: r.id.pos.line, column: r.id.pos.column }],
        });
        continue;
      }
      state.set(r.to, "compiling");
      lookup(refs.get(r.to) ?? []);
      state.set(r.to, "done");
    }
  };
  // The struct's declarations in order: a let's own declaration does not mark it as compiling.
  const top: LetRef[] = [];
  declRefs(struct.decls, lets, new Set(), [], top);
  lookup(top);
}

/** The names a struct literal declares (they shadow the lets of the structs around it). */
function declNames(ds: readonly ast.Decl[], into: Set<string>): void {
  for (const d of ds) {
    if (d.kind === "Let") into.add(d.ident.name);
    if (d.kind !== "Field") continue;
    if (d.label.kind === "Ident") into.add(d.label.name);
    if (d.alias !== undefined) into.add(d.alias.name);
    if (d.keyAlias !== undefined) into.add(d.keyAlias.name);
    if (d.label.kind === "DynamicLabel" && d.label.alias !== undefined) into.add(d.label.alias.name);
  }
}

/**
 * The references of `e` to `lets` (not shadowed), in source order, with the compile path of each:
 * fields of nested structs add their labels, lets `let[]`, comprehension `for` clauses `for[]`.
 */
function letRefs(
  e: ast.Expr,
  lets: ReadonlyMap<string, unknown>,
  shadow: ReadonlySet<string>,
  at: readonly string[],
  out: LetRef[],
): void {
  const sub = (x: ast.Expr, s: ReadonlySet<string> = shadow, p: readonly string[] = at): void =>
    letRefs(x, lets, s, p, out);
  switch (e.kind) {
    case "Ident":
      if (lets.has(e.name) && !shadow.has(e.name)) out.push({ to: e.name, id: e, at });
      return;
    case "Struct": {
      const inner = new Set(shadow);
      declNames(e.decls, inner);
      declRefs(e.decls, lets, inner, at, out);
      return;
    }
    case "List":
      for (const x of e.elems) {
        if (x.kind === "Comprehension") comprehensionRefs(x, lets, shadow, at, out);
        else sub(x);
      }
      if (e.ellipsis?.type !== undefined) sub(e.ellipsis.type);
      return;
    case "Alias":
      sub(e.expr, new Set([...shadow, e.ident.name]));
      return;
    case "Interpolation":
      for (const p of e.parts) if (typeof p !== "string") sub(p);
      return;
    case "Paren":
    case "Unary":
    case "Postfix":
    case "Selector":
      sub(e.expr);
      return;
    case "Binary":
      sub(e.left);
      sub(e.right);
      return;
    case "Index":
      sub(e.expr);
      sub(e.index);
      return;
    case "Slice":
      sub(e.expr);
      if (e.low !== undefined) sub(e.low);
      if (e.high !== undefined) sub(e.high);
      return;
    case "Call":
      sub(e.fn);
      for (const a of e.args) sub(a);
      return;
    default:
      return;
  }
}

/** The references of a struct's declarations, in order; `shadow` holds the struct's own names. */
function declRefs(
  ds: readonly ast.Decl[],
  lets: ReadonlyMap<string, unknown>,
  inner: ReadonlySet<string>,
  at: readonly string[],
  out: LetRef[],
): void {
  const sub = (x: ast.Expr, s: ReadonlySet<string> = inner, p: readonly string[] = at): void =>
    letRefs(x, lets, s, p, out);
  for (const d of ds) {
    switch (d.kind) {
      case "Field": {
        const l = d.label;
        let s: ReadonlySet<string> = inner;
        if (l.kind === "PatternLabel" && l.alias !== undefined) s = new Set([...inner, l.alias.name]);
        sub(d.value, s, [...at, compileLabel(l)]);
        if (l.kind === "DynamicLabel" || l.kind === "PatternLabel") sub(l.expr);
        else if (l.kind === "Interpolation") sub(l);
        break;
      }
      case "Let":
        sub(d.expr, inner, [...at, "let[]"]);
        break;
      case "Embed":
        sub(d.expr);
        break;
      case "Ellipsis":
        if (d.type !== undefined) sub(d.type);
        break;
      case "Comprehension":
        comprehensionRefs(d, lets, inner, at, out);
        break;
      default:
        break;
    }
  }
}

function comprehensionRefs(
  c: ast.Comprehension,
  lets: ReadonlyMap<string, unknown>,
  shadow: ReadonlySet<string>,
  at: readonly string[],
  out: LetRef[],
): void {
  const s = new Set(shadow);
  const p = [...at];
  for (const cl of c.clauses) {
    const x = clauseExpr(cl);
    // A reference keeps its path (`at`), so each gets the path as it is at its clause.
    if (x !== undefined) letRefs(x, lets, s, [...p], out);
    if (cl.kind === "For" && cl.key !== undefined) s.add(cl.key.name);
    if (cl.kind === "For") s.add(cl.value.name);
    else if ((cl.kind === "Let" || cl.kind === "Try") && cl.ident !== undefined) s.add(cl.ident.name);
    const scope = clauseScope(cl);
    if (scope !== undefined) p.push(scope);
  }
  letRefs(c.value, lets, s, p, out);
  if (c.fallback !== undefined) letRefs(c.fallback, lets, shadow, at, out);
}
