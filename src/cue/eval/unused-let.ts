/**
 * cue rejects a `let` declaration of a struct that nothing refers to ("unreferenced alias or let
 * clause"). A name is taken as referred to when any identifier of the struct (outside the
 * declaration's own name) spells it: a shadowing use counts too, so the check never reports a
 * let that is used.
 */

import type * as ast from "../syntax/ast.js";

/**
 * The let clauses among `lets` of a struct with declarations `ds` that are referred to nowhere in
 * them. The struct is walked once for all its lets: each identifier node counts once, and a let's
 * own name is one of them, so a let is referred to when its name is spelled at least twice.
 */
export function unreferencedLets(ds: readonly ast.Decl[], lets: Iterable<ast.LetClause>): ast.LetClause[] {
  const spelled = new Map<string, number>();
  countIdents(ds, spelled, new Set());
  const out: ast.LetClause[] = [];
  for (const d of lets) if ((spelled.get(d.ident.name) ?? 0) < 2) out.push(d);
  return out;
}

function countIdents(node: unknown, spelled: Map<string, number>, seen: Set<object>): void {
  if (typeof node !== "object" || node === null || seen.has(node)) return;
  seen.add(node);
  if (Array.isArray(node)) {
    for (const x of node) countIdents(x, spelled, seen);
    return;
  }
  const n = node as { kind?: unknown; name?: unknown };
  if (n.kind === "Ident" && typeof n.name === "string") {
    spelled.set(n.name, (spelled.get(n.name) ?? 0) + 1);
    return;
  }
  for (const [k, x] of Object.entries(node)) {
    if (k === "pos") continue;
    if (typeof x === "object" && x !== null) countIdents(x, spelled, seen);
  }
}
