/**
 * Let clauses of one struct whose expressions refer to each other in a cycle (`let X = Y` and
 * `let Y = X + 1`): cue's compiler refuses them ("cyclic references in let clause or alias", at
 * the struct's `let[]`), whether or not a field uses them. Only references outside nested structs,
 * lists and comprehensions are followed (those open scopes of their own); a cycle only through
 * them is left to evaluation. A let that nothing in its struct refers to is refused as well
 * ("unreferenced alias or let clause", at the struct).
 */

import type * as ast from "../syntax/ast.js";
import { identLabel } from "../syntax/index.js";
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
  if (lets.size > 0) cycleIn(lets, path, out);
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

function cycleIn(
  lets: Map<string, ast.Decl & { kind: "Let" }>,
  path: readonly string[],
  out: CueError[],
): void {
  // The first reference of each let to another let of the struct, per name.
  const refs = new Map<string, Map<string, ast.Ident>>();
  for (const [name, d] of lets) {
    const m = new Map<string, ast.Ident>();
    idents(d.expr, (id) => {
      if (lets.has(id.name) && !m.has(id.name)) m.set(id.name, id);
    });
    refs.set(name, m);
  }
  const state = new Map<string, 1 | 2>();
  const visit = (n: string): ast.Ident | undefined => {
    state.set(n, 1);
    for (const [to, id] of refs.get(n) ?? []) {
      const s = state.get(to);
      if (s === 1) return id;
      if (s === undefined) {
        const found = visit(to);
        if (found !== undefined) return found;
      }
    }
    state.set(n, 2);
    return undefined;
  };
  for (const name of lets.keys()) {
    if (state.has(name)) continue;
    const at = visit(name);
    if (at !== undefined) {
      // cue reports it at the first let's reference into the cycle.
      const first = refs.get(name)?.values().next().value ?? at;
      out.push({
        path: [...path, "let[]"],
        code: "eval",
        message: "cyclic references in let clause or alias",
        positions: [{ file: first.pos.file, line: first.pos.line, column: first.pos.column }],
      });
      return;
    }
  }
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
      idents(e.expr, f);
      return;
    case "Binary":
      idents(e.left, f);
      idents(e.right, f);
      return;
    case "Selector":
      idents(e.expr, f);
      return;
    case "Index":
      idents(e.expr, f);
      idents(e.index, f);
      return;
    case "Slice":
      idents(e.expr, f);
      if (e.low !== undefined) idents(e.low, f);
      if (e.high !== undefined) idents(e.high, f);
      return;
    case "Call":
      idents(e.fn, f);
      for (const a of e.args) idents(a, f);
      return;
    default:
      return;
  }
}
