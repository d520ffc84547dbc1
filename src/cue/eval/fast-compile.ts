/**
 * Compiling definitions and written values into the fast export path's types (`fast-types.ts`). A
 * definition is compiled once (cached per vertex), a user's struct literal once per syntax node:
 * fields in declaration order (embedded definitions spliced in where they are embedded), pattern
 * constraints with their label aliases in scope, lists, scalar constraints
 * (`fast-compile-scalar.ts`), tagged unions (`fast-compile-union.ts`) and definitions unified with
 * struct literals (`fast-compile-and.ts`). Only what is the same for every use can be compiled: an
 * expression that names a field declared inside the value itself (`<=high`), a comprehension, a
 * let, a field alias or a computed label makes that part BAD, and the fast path gives the whole
 * vertex back to the general evaluator when it meets one.
 *
 * Values are computed with the general evaluator's own functions (`constValue`, `evalExpr`,
 * `scalarValueOf`, `termLiterals`) in the definition's lexical environment, so a compiled type holds
 * exactly the values a use would compute.
 */

import type * as ast from "../syntax/ast.js";
import { inDefinition, scalarValueOf } from "./collect.js";
import { constValue } from "./const-cache.js";
import { scalarDisjunction } from "./disjunction.js";
import { evaluate, isLiteral, patternError } from "./evaluate.js";
import { isExplicitOpen, usesAliasV2 } from "./experiments.js";
import { evalExpr, resolveRef } from "./expr.js";
import { compileAnd } from "./fast-compile-and.js";
import { scalarOk, scalarParts, settleRefs } from "./fast-compile-scalar.js";
import { compileDisj } from "./fast-compile-union.js";
import {
  BAD,
  type BadT,
  type FastType,
  type FieldT,
  NO_FREE,
  type PatternT,
  part,
  type ScalarPart,
  scalarT,
  TOP_T,
  type TypeScope,
  type Uses,
  union,
  uses,
} from "./fast-types.js";
import { lookupDecl } from "./scope.js";
import { TOP } from "./values.js";
import { type Frame, OPTIONAL, REGULAR, REQUIRED, strLabel, type Vertex } from "./vertex.js";

const defTypes = new WeakMap<Vertex, FastType>();
const inProgress = new WeakSet<Vertex>();

/** The compiled type of a definition (or a field inside one), cached per vertex. */
export function defType(d: Vertex): FastType {
  const known = defTypes.get(d);
  if (known !== undefined) return known;
  if (inProgress.has(d)) return BAD;
  inProgress.add(d);
  let t: FastType;
  try {
    t = compileDef(d);
  } finally {
    inProgress.delete(d);
  }
  defTypes.set(d, t);
  return t;
}

function compileDef(d: Vertex): FastType {
  evaluate(d);
  const c = d.conjuncts[0];
  if (d.conjuncts.length !== 1 || c === undefined || d.isLet || !inDefinition(d)) return BAD;
  const x = c.expr;
  if (x === undefined || c.value !== undefined || c.embed || c.open !== undefined || !plainEnv(c.env)) {
    return BAD;
  }
  const bad: BadT = { k: "bad", def: d, free: NO_FREE };
  switch (x.kind) {
    case "Struct": {
      const t = compileStruct(x, { lits: [x], env: c.env, inDef: true, aliases: [] }, d);
      return t.k === "bad" ? bad : t;
    }
    case "Binary":
      if (x.op === "|" && constValue(x, c.env) === undefined) {
        const t = compileDisj(x, c.env, d);
        return t.k === "bad" ? bad : t;
      }
      break;
    case "List":
      return compileExpr(x, { lits: [], env: c.env, inDef: true, aliases: [] });
    default:
      break;
  }
  const sv = scalarValueOf(d);
  return sv !== undefined && scalarOk(sv) ? scalarT([part(sv, 1)]) : bad;
}

/** No experiment changes how the code in `env` evaluates. */
export function plainEnv(env: Frame): boolean {
  return !isExplicitOpen(env) && !usesAliasV2(env);
}

/**
 * Whether `e` uses a name that one of the scope's literals declares or a pattern label alias in
 * scope (its value would differ per use).
 */
function usesInner(e: ast.Expr, scope: TypeScope): boolean {
  switch (e.kind) {
    case "Ident":
      for (const l of scope.lits) if (lookupDecl(l, e.name) !== undefined) return true;
      for (const a of scope.aliases) if (a.name === e.name) return true;
      return false;
    case "Int":
    case "Float":
    case "String":
    case "Bytes":
    case "Bool":
    case "Null":
      return false;
    case "Selector":
      return usesInner(e.expr, scope);
    case "Index":
      return usesInner(e.expr, scope) || usesInner(e.index, scope);
    case "Paren":
    case "Unary":
      return usesInner(e.expr, scope);
    case "Binary":
      return usesInner(e.left, scope) || usesInner(e.right, scope);
    case "Call":
      return usesInner(e.fn, scope) || e.args.some((a) => usesInner(a, scope));
    case "Interpolation":
      return e.parts.some((p) => typeof p !== "string" && usesInner(p, scope));
    default:
      return true;
  }
}

/**
 * The pattern label alias an identifier names (undefined: none; null: the innermost alias of that
 * name is shadowed by a field of a literal inside it, which the fast path does not follow).
 */
function aliasRef(e: ast.Ident, scope: TypeScope): ast.PatternLabel | null | undefined {
  for (const a of scope.aliases) {
    if (a.name !== e.name) continue;
    const inner = scope.lits.length - a.depth;
    for (let i = 0; i < inner; i++) {
      if (lookupDecl(scope.lits[i] as ast.StructLit, e.name) !== undefined) return null;
    }
    return a.label;
  }
  return undefined;
}

/** The type of a field value, list element or pattern value written in `scope`. */
export function compileExpr(e: ast.Expr, scope: TypeScope): FastType {
  switch (e.kind) {
    case "Struct":
      return compileStruct(e, { ...scope, lits: [e, ...scope.lits] }, undefined);
    case "List":
      return compileList(e, scope);
    case "Ident": {
      const a = aliasRef(e, scope);
      if (a === null) return BAD;
      // The evaluator unifies the label (a string) in its second pass, as any reference.
      if (a !== undefined) return { k: "scalar", parts: [{ value: TOP, phase: 1, alias: a }], free: [a] };
      break;
    }
    case "Binary":
      if (e.op === "&") {
        const t = compileAnd(e, scope);
        if (t !== undefined) return t;
      }
      break;
    default:
      break;
  }
  if (usesInner(e, scope)) return BAD;
  const env = scope.env;
  if (e.kind === "Ident" || e.kind === "Selector" || e.kind === "Index") {
    if (e.kind === "Ident" && e.name === "_") return TOP_T;
    const r = resolveRef(e, env);
    if (r.t === "value") return scalarOk(r.v) ? scalarT([part(r.v, 1)]) : BAD;
    const v = r.v;
    if (v.conjuncts.length === 0 || v.isLet) return BAD;
    const sv = scalarValueOf(v);
    if (sv !== undefined) return scalarOk(sv) ? scalarT([part(sv, 1)]) : BAD;
    return inDefinition(v) ? defType(v) : BAD;
  }
  settleRefs(e, env);
  if (isLiteral(e, env)) {
    const k = e.kind === "Binary" || e.kind === "Unary" ? constValue(e, env) : evalExpr(e, env);
    return k !== undefined && scalarOk(k) ? scalarT([part(k, 0)]) : BAD;
  }
  if (e.kind === "Binary" && e.op === "|") {
    const d = scalarDisjunction(e, env);
    if (d !== undefined) return scalarOk(d) ? scalarT([part(d, 2)]) : BAD;
    return compileDisj(e, env, undefined);
  }
  const parts: ScalarPart[] = [];
  return scalarParts(e, env, parts) ? scalarT(parts) : BAD;
}

function compileList(e: ast.ListLit, scope: TypeScope): FastType {
  const prefix: Uses[] = [];
  let free = NO_FREE;
  for (const el of e.elems) {
    if (el.kind === "Comprehension" || el.kind === "Alias") return BAD;
    const t = compileExpr(el, scope);
    free = union(free, t.free);
    prefix.push(uses(el, t));
  }
  const ell = e.ellipsis;
  let rest: Uses | undefined;
  if (ell?.type !== undefined) {
    const t = compileExpr(ell.type, scope);
    free = union(free, t.free);
    rest = uses(ell.type, t);
  }
  return { k: "list", prefix, rest, open: ell !== undefined, free };
}

function fieldType(d: ast.Field): number {
  return d.constraint === "optional" ? OPTIONAL : d.constraint === "required" ? REQUIRED : REGULAR;
}

/** A struct literal's type (scope.lits starts with `lit`); `def` when it is a definition's body. */
function compileStruct(lit: ast.StructLit, scope: TypeScope, def: Vertex | undefined): FastType {
  const fields: FieldT[] = [];
  const patterns: PatternT[] = [];
  const labels = new Set<string>();
  let open = false;
  let embeds = false;
  let free = NO_FREE;
  for (const d of lit.decls) {
    switch (d.kind) {
      case "Field": {
        if (d.alias !== undefined || d.keyAlias !== undefined || d.value.kind === "Alias") return BAD;
        const l = d.label;
        let label: string;
        if (l.kind === "Ident") {
          const c = l.name.charCodeAt(0);
          if (c === 0x23 || c === 0x5f || c === 0x24) return BAD;
          label = l.name;
        } else if (l.kind === "String") {
          label = strLabel(l.value);
        } else if (l.kind === "PatternLabel") {
          if (usesInner(l.expr, scope)) return BAD;
          const pattern = evalExpr(l.expr, scope.env);
          if (pattern.t === "bottom" || patternError(pattern) !== undefined) return BAD;
          // `[Name=string]: v`: in v, `Name` is the label the pattern matched.
          const alias = l.alias === undefined ? undefined : l;
          const inner =
            alias === undefined
              ? scope
              : {
                  ...scope,
                  aliases: [
                    { name: l.alias?.name ?? "", label: l, depth: scope.lits.length },
                    ...scope.aliases,
                  ],
                };
          const t = compileExpr(d.value, inner);
          free = union(free, alias === undefined ? t.free : t.free.filter((x) => x !== alias));
          patterns.push({ pattern, uses: uses(d.value, t), alias });
          continue;
        } else return BAD;
        labels.add(label);
        const t = compileExpr(d.value, scope);
        free = union(free, t.free);
        fields.push({ label, ft: fieldType(d), uses: uses(d.value, t), declared: true });
        break;
      }
      case "Embed": {
        // Only inside a definition: there an embedded definition merges into the closing context.
        const x = d.expr;
        if (!scope.inDef) return BAD;
        if ((x.kind !== "Ident" && x.kind !== "Selector") || usesInner(x, scope)) return BAD;
        const r = resolveRef(x, scope.env);
        if (r.t !== "vertex" || r.v.isLet || !inDefinition(r.v)) return BAD;
        const t = defType(r.v);
        if (t.k !== "struct") return BAD;
        fields.push(...t.fields);
        patterns.push(...t.patterns);
        for (const l of t.labels) labels.add(l);
        if (t.open) open = true;
        embeds = true;
        break;
      }
      case "Ellipsis":
        if (d.type !== undefined) return BAD;
        open = true;
        break;
      case "Attribute":
        break;
      default:
        return BAD;
    }
  }
  return { k: "struct", fields, patterns, labels, open, embeds, def, closes: def !== undefined, free };
}

const litTypes = new WeakMap<ast.Expr, { top: Frame; t: FastType }>();

/**
 * The type of a struct or list literal (or another expression) written as a conjunct of the vertex
 * being exported, in `env`. The struct literals of `env`'s frames belong to this use (names they
 * declare are not the same for every use), except the file's own body, whose fields are the same
 * top-level vertices for every use. Undefined when a frame binds names (aliases, comprehension
 * variables) or an experiment applies.
 */
export function conjunctType(e: ast.Expr, env: Frame): FastType | undefined {
  const lits: ast.StructLit[] = [];
  let top = env;
  for (let f: Frame | undefined = env; f !== undefined; f = f.up) {
    if (f.binds !== undefined || f.list === true || f.tryScope === true) return undefined;
    const fileBody = f.up !== undefined && f.up.up === undefined && f.vertex.parent === undefined;
    if (f.lit !== undefined && !fileBody) lits.push(f.lit);
    top = f;
  }
  if (!plainEnv(env)) return undefined;
  const hit = litTypes.get(e);
  if (hit !== undefined && hit.top === top) return hit.t;
  const t = compileExpr(e, { lits, env, inDef: false, aliases: [] });
  litTypes.set(e, { top, t });
  return t;
}
