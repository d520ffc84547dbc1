/**
 * Compiled types for the fast export path (`fast-export.ts`). A definition such as `#Host` is
 * compiled once into a {@link FastType}: its fields in declaration order (embedded definitions
 * spliced in where they are embedded), each with its constraint as the scalar values the general
 * evaluator would unify (`*"60s" | #Duration` is one constant value), nested structs, lists,
 * pattern constraints and tagged unions of definitions. Only what is the same for every use can be
 * compiled: an expression that names a field declared inside the definition itself (`<=high`), a
 * comprehension, a let, an alias or a computed label makes that part {@link BadT}, and the fast path
 * gives the whole vertex back to the general evaluator when it meets one.
 *
 * Values are computed with the general evaluator's own functions (`constValue`, `evalExpr`,
 * `scalarValueOf`, `termLiterals`) in the definition's lexical environment, so a compiled type holds
 * exactly the values a use would compute; `phase` records whether the evaluator unifies the part in
 * its first pass (literals and constant expressions) or its second, which fixes the order of meets.
 */

import type * as ast from "../syntax/ast.js";
import { inDefinition, scalarValueOf } from "./collect.js";
import { constValue } from "./const-cache.js";
import { termLiterals } from "./discriminator.js";
import { scalarDisjunction } from "./disjunction.js";
import { evaluate, isLiteral, patternError } from "./evaluate.js";
import { isExplicitOpen, usesAliasV2 } from "./experiments.js";
import { evalExpr, resolveRef } from "./expr.js";
import { lookupDecl } from "./scope.js";
import type { Value } from "./values.js";
import { type Frame, OPTIONAL, REGULAR, REQUIRED, strLabel, type Vertex } from "./vertex.js";

/**
 * A scalar value to unify, in the evaluator's first pass (0: literals and constant expressions),
 * its second (1: the other conjuncts), or after collection (2: disjunctions left pending).
 */
export interface ScalarPart {
  readonly value: Value;
  readonly phase: 0 | 1 | 2;
}

/** One field declaration of a struct type (a label may be declared more than once). */
export interface FieldT {
  readonly label: string;
  /** REGULAR, REQUIRED or OPTIONAL. */
  readonly ft: number;
  /** The declared value (discrimination reads literal values from it). */
  readonly expr: ast.Expr;
  readonly type: FastType;
}

/** A pattern constraint `[pattern]: type`. */
export interface PatternT {
  readonly pattern: Value;
  readonly expr: ast.Expr;
  readonly type: FastType;
}

export interface StructT {
  readonly k: "struct";
  readonly fields: readonly FieldT[];
  readonly patterns: readonly PatternT[];
  /** Every label a struct literal of this type declares (what closedness allows). */
  readonly labels: ReadonlySet<string>;
  /** A `...` allows any label. */
  readonly open: boolean;
  /** The definition this type was compiled from (it closes the struct), if any. */
  readonly def: Vertex | undefined;
}

export interface ScalarT {
  readonly k: "scalar";
  readonly parts: readonly ScalarPart[];
}

/** One alternative of a tagged union: its literal fields (`type: "tcp"`) and its type. */
export interface TermT {
  readonly lits: ReadonlyMap<string, Value> | null;
  readonly type: FastType;
}

/** A disjunction of definitions without defaults, chosen by literal fields. */
export interface DisjT {
  readonly k: "disj";
  readonly terms: readonly TermT[];
  readonly def: Vertex | undefined;
}

export interface ElemT {
  readonly expr: ast.Expr;
  readonly type: FastType;
}

export interface ListT {
  readonly k: "list";
  readonly prefix: readonly ElemT[];
  /** The type of further elements (`...T`); undefined for `...` or a closed list. */
  readonly rest: ElemT | undefined;
  readonly open: boolean;
}

export interface TopT {
  readonly k: "top";
}

/**
 * What the fast path cannot evaluate. `def`: the definition it was compiled from, whose evaluated
 * value still stands for a use that adds nothing to it (`flap: #Flap` left alone).
 */
export interface BadT {
  readonly k: "bad";
  readonly def: Vertex | undefined;
}

export type FastType = StructT | ScalarT | DisjT | ListT | TopT | BadT;

const BAD: BadT = { k: "bad", def: undefined };
const TOP_T: TopT = { k: "top" };

/**
 * The lexical situation of an expression being compiled: the struct literals around it whose
 * frames belong to the use (names they declare differ per use), innermost first, and the
 * environment outside them, which is the same for every use.
 */
export interface TypeScope {
  readonly lits: readonly ast.StructLit[];
  readonly env: Frame;
  /** Inside a definition's body: every use is closed by the definition (embedding is allowed). */
  readonly inDef: boolean;
}

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
  const bad: BadT = { k: "bad", def: d };
  switch (x.kind) {
    case "Struct": {
      const t = compileStruct(x, { lits: [x], env: c.env, inDef: true }, d);
      return t.k === "bad" ? bad : t;
    }
    case "Binary":
      if (x.op === "|" && constValue(x, c.env) === undefined) {
        const t = compileDisj(x, c.env, d);
        return t.k === "bad" ? bad : t;
      }
      break;
    case "List":
      return compileExpr(x, { lits: [], env: c.env, inDef: true });
    default:
      break;
  }
  const sv = scalarValueOf(d);
  return sv !== undefined && scalarOk(sv) ? { k: "scalar", parts: [{ value: sv, phase: 1 }] } : bad;
}

/** No experiment changes how the code in `env` evaluates. */
export function plainEnv(env: Frame): boolean {
  return !isExplicitOpen(env) && !usesAliasV2(env);
}

/** Whether a value can be a compiled scalar constraint: top, an atom, a basic type, a scalar disjunction. */
function scalarOk(v: Value): boolean {
  switch (v.t) {
    case "top":
    case "null":
    case "bool":
    case "int":
    case "float":
    case "string":
    case "bytes":
    case "basic":
      return true;
    case "disj":
      return v.values.every(scalarOk);
    default:
      return false;
  }
}

/** Whether `e` uses a name that one of `lits` declares (its value would differ per use). */
function usesInner(e: ast.Expr, lits: readonly ast.StructLit[]): boolean {
  switch (e.kind) {
    case "Ident":
      for (const l of lits) if (lookupDecl(l, e.name) !== undefined) return true;
      return false;
    case "Int":
    case "Float":
    case "String":
    case "Bytes":
    case "Bool":
    case "Null":
      return false;
    case "Selector":
      return usesInner(e.expr, lits);
    case "Index":
      return usesInner(e.expr, lits) || usesInner(e.index, lits);
    case "Paren":
    case "Unary":
      return usesInner(e.expr, lits);
    case "Binary":
      return usesInner(e.left, lits) || usesInner(e.right, lits);
    case "Call":
      return usesInner(e.fn, lits) || e.args.some((a) => usesInner(a, lits));
    case "Interpolation":
      return e.parts.some((p) => typeof p !== "string" && usesInner(p, lits));
    default:
      return true;
  }
}

/** The type of a field value, list element or pattern value written in `scope`. */
export function compileExpr(e: ast.Expr, scope: TypeScope): FastType {
  switch (e.kind) {
    case "Struct":
      return compileStruct(e, { lits: [e, ...scope.lits], env: scope.env, inDef: scope.inDef }, undefined);
    case "List":
      return compileList(e, scope);
    default:
      break;
  }
  if (usesInner(e, scope.lits)) return BAD;
  const env = scope.env;
  if (e.kind === "Ident" || e.kind === "Selector" || e.kind === "Index") {
    if (e.kind === "Ident" && e.name === "_") return TOP_T;
    const r = resolveRef(e, env);
    if (r.t === "value") return scalarOk(r.v) ? { k: "scalar", parts: [{ value: r.v, phase: 1 }] } : BAD;
    const v = r.v;
    if (v.conjuncts.length === 0 || v.isLet) return BAD;
    const sv = scalarValueOf(v);
    if (sv !== undefined) return scalarOk(sv) ? { k: "scalar", parts: [{ value: sv, phase: 1 }] } : BAD;
    return inDefinition(v) ? defType(v) : BAD;
  }
  settleRefs(e, env);
  if (isLiteral(e, env)) {
    const k = e.kind === "Binary" || e.kind === "Unary" ? constValue(e, env) : evalExpr(e, env);
    return k !== undefined && scalarOk(k) ? { k: "scalar", parts: [{ value: k, phase: 0 }] } : BAD;
  }
  if (e.kind === "Binary" && e.op === "|") {
    const d = scalarDisjunction(e, env);
    if (d !== undefined) return scalarOk(d) ? { k: "scalar", parts: [{ value: d, phase: 2 }] } : BAD;
    return compileDisj(e, env, undefined);
  }
  const parts: ScalarPart[] = [];
  return scalarParts(e, env, parts) ? { k: "scalar", parts } : BAD;
}

/**
 * Evaluates the definitions a constant expression names first, so that `constValue` treats it the
 * same way at every use (it only takes definitions that are already evaluated).
 */
function settleRefs(e: ast.Expr, env: Frame): void {
  switch (e.kind) {
    case "Ident":
      if (e.name.startsWith("#")) {
        const r = resolveRef(e, env);
        if (r.t === "vertex") evaluate(r.v);
      }
      return;
    case "Paren":
    case "Unary":
      settleRefs(e.expr, env);
      return;
    case "Binary":
      settleRefs(e.left, env);
      settleRefs(e.right, env);
      return;
    default:
      return;
  }
}

/**
 * The scalar parts a conjunct unified in the second pass contributes, in the evaluator's order:
 * `&` is split into its operands, references give their evaluated scalar. False when some part is
 * not a scalar this path handles.
 */
function scalarParts(e: ast.Expr, env: Frame, out: ScalarPart[]): boolean {
  if (e.kind === "Binary" || e.kind === "Unary") {
    const k = constValue(e, env);
    if (k !== undefined) {
      out.push({ value: k, phase: 1 });
      return scalarOk(k);
    }
  }
  switch (e.kind) {
    case "Paren":
      return scalarParts(e.expr, env, out);
    case "Binary":
      if (e.op === "&") return scalarParts(e.left, env, out) && scalarParts(e.right, env, out);
      if (e.op === "|") {
        const d = scalarDisjunction(e, env);
        if (d === undefined) return false;
        out.push({ value: d, phase: 2 });
        return scalarOk(d);
      }
      break;
    case "Unary":
      if (e.op === "*") return false;
      break;
    case "Ident":
    case "Selector":
    case "Index": {
      const r = resolveRef(e, env);
      const v = r.t === "value" ? r.v : r.v.conjuncts.length === 0 ? undefined : scalarValueOf(r.v);
      if (v === undefined || !scalarOk(v)) return false;
      out.push({ value: v, phase: 1 });
      return true;
    }
    case "Int":
    case "Float":
    case "String":
    case "Bytes":
    case "Bool":
    case "Null":
    case "Interpolation":
      break;
    default:
      return false;
  }
  const v = evalExpr(e, env);
  out.push({ value: v, phase: 1 });
  return scalarOk(v);
}

/** A disjunction whose alternatives are all definitions of structs (a tagged union). */
function compileDisj(e: ast.Binary, env: Frame, def: Vertex | undefined): FastType {
  const terms: TermT[] = [];
  if (!flatten(e, env, terms, 0)) return BAD;
  return { k: "disj", terms, def };
}

function flatten(e: ast.Expr, env: Frame, out: TermT[], depth: number): boolean {
  if (depth > 16) return false;
  const alts: ast.Expr[] = [];
  if (!splitAlts(e, alts)) return false;
  for (const alt of alts) {
    let x = alt;
    while (x.kind === "Paren") x = x.expr;
    if (x.kind === "Binary" && x.op === "|") {
      if (!flatten(x, env, out, depth + 1)) return false;
      continue;
    }
    if (x.kind !== "Ident" && x.kind !== "Selector") return false;
    const r = resolveRef(x, env);
    if (r.t !== "vertex" || r.v.isLet || !inDefinition(r.v) || r.v.conjuncts.length !== 1) return false;
    const c = r.v.conjuncts[0];
    let inner = c?.expr;
    if (c === undefined || inner === undefined || c.value !== undefined) return false;
    // A reference to another disjunction is expanded in place, as the evaluator flattens it.
    while (inner.kind === "Paren") inner = inner.expr;
    if (inner.kind === "Binary" && inner.op === "|") {
      if (!flatten(inner, c.env, out, depth + 1)) return false;
      continue;
    }
    out.push({ lits: termLiterals(x, env), type: defType(r.v) });
  }
  return true;
}

/** The alternatives of `a | b | c` (false when one is marked as a default). */
function splitAlts(e: ast.Expr, out: ast.Expr[]): boolean {
  if (e.kind === "Binary" && e.op === "|") return splitAlts(e.left, out) && splitAlts(e.right, out);
  if (e.kind === "Unary" && e.op === "*") return false;
  out.push(e);
  return true;
}

function compileList(e: ast.ListLit, scope: TypeScope): FastType {
  const prefix: ElemT[] = [];
  for (const el of e.elems) {
    if (el.kind === "Comprehension" || el.kind === "Alias") return BAD;
    prefix.push({ expr: el, type: compileExpr(el, scope) });
  }
  const ell = e.ellipsis;
  const rest = ell?.type === undefined ? undefined : { expr: ell.type, type: compileExpr(ell.type, scope) };
  return { k: "list", prefix, rest, open: ell !== undefined };
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
          if (label.charCodeAt(0) === 1) return BAD;
        } else if (l.kind === "PatternLabel") {
          if (usesInner(l.expr, scope.lits)) return BAD;
          const pattern = evalExpr(l.expr, scope.env);
          if (pattern.t === "bottom" || patternError(pattern) !== undefined) return BAD;
          patterns.push({ pattern, expr: d.value, type: compileExpr(d.value, scope) });
          continue;
        } else return BAD;
        labels.add(label);
        fields.push({ label, ft: fieldType(d), expr: d.value, type: compileExpr(d.value, scope) });
        break;
      }
      case "Embed": {
        // Only inside a definition: there an embedded definition merges into the closing context.
        const x = d.expr;
        if (!scope.inDef) return BAD;
        if ((x.kind !== "Ident" && x.kind !== "Selector") || usesInner(x, scope.lits)) return BAD;
        const r = resolveRef(x, scope.env);
        if (r.t !== "vertex" || r.v.isLet || !inDefinition(r.v)) return BAD;
        const t = defType(r.v);
        if (t.k !== "struct") return BAD;
        fields.push(...t.fields);
        patterns.push(...t.patterns);
        for (const l of t.labels) labels.add(l);
        if (t.open) open = true;
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
  return { k: "struct", fields, patterns, labels, open, def };
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
  const t = compileExpr(e, { lits, env, inDef: false });
  litTypes.set(e, { top, t });
  return t;
}
