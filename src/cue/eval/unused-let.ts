/**
 * cue rejects a `let` declaration of a struct that nothing refers to ("unreferenced alias or let
 * clause"). A name is taken as referred to when any identifier of the struct (outside the
 * declaration's own name) spells it: a shadowing use counts too, so the check never reports a
 * let that is used.
 */

import type * as ast from "../syntax/ast.js";

/** Whether the let clause `d` of a struct with declarations `ds` is referred to nowhere in them. */
export function unreferencedLet(ds: readonly ast.Decl[], d: ast.LetClause): boolean {
  return !spells(ds, d.ident.name, d.ident, new Set());
}

function spells(node: unknown, name: string, skip: ast.Ident, seen: Set<object>): boolean {
  if (typeof node !== "object" || node === null || node === skip || seen.has(node)) return false;
  seen.add(node);
  if (Array.isArray(node)) {
    for (const x of node) if (spells(x, name, skip, seen)) return true;
    return false;
  }
  const n = node as { kind?: unknown; name?: unknown };
  if (n.kind === "Ident" && n.name === name) return true;
  for (const [k, x] of Object.entries(node)) {
    if (k === "pos") continue;
    if (typeof x === "object" && x !== null && spells(x, name, skip, seen)) return true;
  }
  return false;
}
