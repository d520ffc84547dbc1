/**
 * What a struct whose comprehensions are running may still add. A condition of another struct that
 * tests one of its fields (`if a.port == _|_`) is decided only when no comprehension of it can add
 * that field: otherwise the two structs depend on each other (cue: a cycle). A label no
 * comprehension body names is absent for good.
 */

import type * as ast from "../syntax/ast.js";
import { identLabel } from "../syntax/index.js";
import { evaluate } from "./evaluate.js";
import { exprText } from "./print-expr.js";
import { resolveName } from "./scope.js";
import { type BottomV, bottom, isAtom } from "./values.js";
import { type Deferred, type Frame, OPTIONAL, strLabel, type Vertex } from "./vertex.js";

/** The comprehensions and dynamic fields of a struct that are being run (taken off `deferred`). */
const inFlight = new WeakMap<Vertex, readonly Deferred[]>();

/** Records the list `v` is running; returns what to restore afterwards. */
export function runningDeferred(v: Vertex, list: readonly Deferred[]): readonly Deferred[] | undefined {
  const before = inFlight.get(v);
  inFlight.set(v, list);
  return before;
}

export function doneDeferred(v: Vertex, before: readonly Deferred[] | undefined): void {
  if (before === undefined) inFlight.delete(v);
  else inFlight.set(v, before);
}

/** Whether a comprehension or dynamic field of `v`, pending or running, may add the field `label`. */
export function mayStillAdd(v: Vertex, label: string): boolean {
  if (inFlight.get(v)?.some((d) => declMayAdd(d.decl, label))) return true;
  return v.deferred?.some((d) => declMayAdd(d.decl, label)) ?? false;
}

function declMayAdd(d: ast.Comprehension | ast.Field, label: string): boolean {
  if (d.kind === "Field") return true; // a dynamic label: any name
  return bodyMayAdd(d.value, label) || (d.fallback !== undefined && bodyMayAdd(d.fallback, label));
}

function bodyMayAdd(lit: ast.StructLit, label: string): boolean {
  for (const d of lit.decls) {
    switch (d.kind) {
      case "Field": {
        const name = identLabel(d);
        if (name !== undefined) {
          if (name === label) return true;
          break;
        }
        const l = d.label;
        if (l.kind === "String") {
          if (strLabel(l.value) === label) return true;
        } else if (l.kind !== "PatternLabel") return true;
        break;
      }
      case "Embed":
        return true;
      case "Comprehension":
        if (declMayAdd(d, label)) return true;
        break;
      default:
        break;
    }
  }
  return false;
}

/**
 * Comprehensions of one struct whose conditions each test (`x == _|_`, `x != _|_`) a field another
 * of them may add (`if #E.x == _|_ {#E: y: true}` beside `if #E.y == _|_ {#E: x: true}`): neither
 * can be decided first, which cue reports as a circular dependency. A field the struct declares
 * with a concrete scalar value is decided already and breaks the chain. Undefined when none.
 */
export function conditionCycle(v: Vertex): BottomV | undefined {
  const ds = v.deferred;
  if (ds === undefined || ds.length < 2) return undefined;
  let tests = 0;
  for (const d of ds) if (d.decl.kind === "Comprehension" && d.decl.clauses.some(isBottomTest)) tests++;
  if (tests < 2) return undefined;
  const comps: { reads: string[][]; adds: string[][]; first: ast.Expr }[] = [];
  for (const d of ds) {
    if (d.decl.kind !== "Comprehension") continue;
    const reads: string[][] = [];
    let first: ast.Expr | undefined;
    for (const cl of d.decl.clauses) {
      if (cl.kind !== "If") {
        reads.length = 0;
        break;
      }
      const op = bottomTested(cl.condition);
      if (op === undefined) continue;
      const before = reads.length;
      fieldPaths(op, d.env, v, reads);
      if (reads.length > before) first ??= op;
    }
    if (first === undefined || reads.length === 0) continue;
    const adds: string[][] = [];
    addedPaths(d.decl.value, [], adds);
    comps.push({ reads: reads.filter((p) => !scalarPresent(v, p)), adds, first });
  }
  if (comps.length < 2) return undefined;
  // i depends on j (j ≠ i) when j may add at, above or below a path i reads.
  const dep = (i: number, j: number): boolean =>
    i !== j &&
    (comps[i]?.reads ?? []).some((r) => (comps[j]?.adds ?? []).some((a) => prefixOf(a, r) || prefixOf(r, a)));
  for (let i = 0; i < comps.length; i++) {
    const seen = new Set<number>([i]);
    const stack = [i];
    while (stack.length > 0) {
      const k = stack.pop() as number;
      for (let j = 0; j < comps.length; j++) {
        if (!dep(k, j)) continue;
        if (j === i) {
          const c = comps[i] as (typeof comps)[number];
          return bottom(
            "cycle",
            `circular dependency in evaluation of conditionals: ${exprText(c.first)} changed after evaluation`,
            [c.first.pos],
          );
        }
        if (!seen.has(j)) {
          seen.add(j);
          stack.push(j);
        }
      }
    }
  }
  return undefined;
}

function isBottomTest(cl: ast.Clause): boolean {
  return cl.kind === "If" && bottomTested(cl.condition) !== undefined;
}

/** `x` of `x == _|_` or `x != _|_` (possibly negated or parenthesized). */
function bottomTested(e: ast.Expr): ast.Expr | undefined {
  switch (e.kind) {
    case "Paren":
      return bottomTested(e.expr);
    case "Unary":
      return e.op === "!" ? bottomTested(e.expr) : undefined;
    case "Binary":
      if (e.op === "&&" || e.op === "||") return bottomTested(e.left) ?? bottomTested(e.right);
      if (e.op !== "==" && e.op !== "!=") return undefined;
      if (e.right.kind === "Bottom") return e.left;
      if (e.left.kind === "Bottom") return e.right;
      return undefined;
    default:
      return undefined;
  }
}

/** The paths, relative to `v`, of the fields of `v` an expression refers to (`a.b` → [a, b]). */
function fieldPaths(e: ast.Expr, env: Frame, v: Vertex, out: string[][]): void {
  switch (e.kind) {
    case "Paren":
    case "Unary":
      fieldPaths(e.expr, env, v, out);
      return;
    case "Binary":
      fieldPaths(e.left, env, v, out);
      fieldPaths(e.right, env, v, out);
      return;
    case "Ident":
    case "Selector": {
      const sels: string[] = [];
      let x: ast.Expr = e;
      while (x.kind === "Selector") {
        sels.unshift(x.sel.kind === "Ident" ? x.sel.name : strLabel(x.sel.value));
        x = x.expr;
      }
      if (x.kind !== "Ident") return;
      const r = resolveName(x.name, env);
      if (r === undefined || r.t !== "vertex") return;
      if (r.v === v) {
        if (sels.length > 0) out.push(sels);
      } else if (r.v.parent === v && !r.v.isLet) out.push([r.v.label, ...sels]);
      return;
    }
    default:
      return;
  }
}

/**
 * The label paths a comprehension body adds values at: a field whose value is a struct literal
 * adds only the fields that literal declares (`#E: y: true` adds #E.y, not the whole #E).
 */
function addedPaths(lit: ast.StructLit, prefix: string[], out: string[][]): void {
  for (const d of lit.decls) {
    if (d.kind === "Comprehension") {
      addedPaths(d.value, prefix, out);
      continue;
    }
    if (d.kind !== "Field") continue;
    const name = identLabel(d) ?? (d.label.kind === "String" ? strLabel(d.label.value) : undefined);
    if (name === undefined) continue;
    const p = [...prefix, name];
    const n = out.length;
    if (d.value.kind === "Struct") addedPaths(d.value, p, out);
    if (out.length === n) out.push(p);
  }
}

function prefixOf(p: readonly string[], of: readonly string[]): boolean {
  return p.length <= of.length && p.every((x, i) => x === of[i]);
}

/** Whether `v` declares the field at `path` with a scalar value (not through a comprehension). */
function scalarPresent(v: Vertex, path: readonly string[]): boolean {
  let a: Vertex | undefined = v;
  for (const label of path) {
    if (a !== v && a !== undefined) evaluate(a);
    a = a?.arcs?.get(label);
    if (a === undefined || a.fieldType === OPTIONAL) return false;
  }
  if (a === undefined) return false;
  evaluate(a);
  return a.err === undefined && !a.isList && a.structMark === 0 && a.arcs === undefined && isAtom(a.scalar);
}
