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
import { TOP, type Value } from "./values.js";
import { type Frame, OPTIONAL, REGULAR, REQUIRED, strLabel, type Vertex } from "./vertex.js";

/**
 * A scalar value to unify, in the evaluator's first pass (0: literals and constant expressions),
 * its second (1: the other conjuncts), or after collection (2: disjunctions left pending).
 */
export interface ScalarPart {
  readonly value: Value;
  readonly phase: 0 | 1 | 2;
  /** A reference to a pattern's label alias (`name: Name`): the value is the matched label, per use. */
  readonly alias: ast.PatternLabel | undefined;
}

function part(value: Value, phase: 0 | 1 | 2): ScalarPart {
  return { value, phase, alias: undefined };
}

/**
 * The labels that pattern label aliases stand for where a use is evaluated, innermost first: a
 * pattern `[Name=string]: v` applied to the field `svc1` binds `Name` to "svc1" for its value.
 */
export interface Binds {
  readonly label: ast.PatternLabel;
  readonly value: string;
  readonly up: Binds | undefined;
}

/**
 * A declared value as one conjunct of a vertex: its expression (discrimination reads literal
 * values from it), its type, and whether a closedness context closes the struct it describes.
 */
export class Use {
  /** What this use exports when it is its vertex's only conjunct (the fast path fills it in). */
  alone: unknown = undefined;
  /** What kind of vertex its type makes: {@link NEUTRAL}, {@link SCALAR}, {@link STRUCT}, … */
  readonly kind: number;
  constructor(
    readonly expr: ast.Expr,
    readonly type: FastType,
    readonly closed: boolean,
    /** What the label aliases its type refers to stand for (set only when its type has free ones). */
    readonly binds: Binds | undefined = undefined,
  ) {
    this.kind = kindOfType(type);
  }
}

/** Vertex kinds a type makes. NEUTRAL: none of its own (top, or only `_`-like constraints). */
export const NEUTRAL = -1;
export const SCALAR = 0;
export const STRUCT = 1;
export const LIST = 2;
/** A type the fast path cannot evaluate. */
export const BADK = 3;

function kindOfType(t: FastType): number {
  switch (t.k) {
    case "struct":
    case "disj":
      return STRUCT;
    case "list":
      return LIST;
    case "scalar":
      for (const p of t.parts) if (p.value.t !== "top" || p.alias !== undefined) return SCALAR;
      return NEUTRAL;
    case "top":
      return NEUTRAL;
    case "bad":
      return BADK;
    default: {
      const never: never = t;
      return never;
    }
  }
}

/** The two uses of a declaration: in an open context and in a closed one. */
export type Uses = readonly [open: Use, closed: Use];

function uses(expr: ast.Expr, type: FastType): Uses {
  return [new Use(expr, type, false), new Use(expr, type, true)];
}

/** One field declaration of a struct type (a label may be declared more than once). */
export interface FieldT {
  readonly label: string;
  /** REGULAR, REQUIRED or OPTIONAL. */
  readonly ft: number;
  readonly uses: Uses;
  /** Whether the type's own closedness allows the label (its `labels` has it). */
  readonly declared: boolean;
}

/** A pattern constraint `[pattern]: type`, or `[Alias=pattern]: type`. */
export interface PatternT {
  readonly pattern: Value;
  readonly uses: Uses;
  /** The label, when it names an alias the value may refer to. */
  readonly alias: ast.PatternLabel | undefined;
}

export interface StructT {
  readonly k: "struct";
  readonly fields: readonly FieldT[];
  readonly patterns: readonly PatternT[];
  /** Every label a struct literal of this type declares (what closedness allows). */
  readonly labels: ReadonlySet<string>;
  /** A `...` allows any label. */
  readonly open: boolean;
  /** Fields of embedded definitions are spliced in. */
  readonly embeds: boolean;
  /** The definition this type was compiled from (it closes the struct), if any. */
  readonly def: Vertex | undefined;
  /**
   * Whether the type closes the struct itself (a definition, or a definition unified with a struct
   * literal: `#Service & {name: Name}`), whatever the context of its use.
   */
  readonly closes: boolean;
  readonly free: Free;
}

export interface ScalarT {
  readonly k: "scalar";
  readonly parts: readonly ScalarPart[];
  readonly free: Free;
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
  /**
   * When every term has exactly one literal field, the same label with a distinct string for each
   * (`type: "tcp"`): the terms by that string.
   */
  readonly tag: { readonly label: string; readonly terms: ReadonlyMap<string, TermT> } | undefined;
  readonly def: Vertex | undefined;
  readonly free: Free;
}

export interface ListT {
  readonly k: "list";
  readonly prefix: readonly Uses[];
  /** The type of further elements (`...T`); undefined for `...` or a closed list. */
  readonly rest: Uses | undefined;
  readonly open: boolean;
  readonly free: Free;
}

export interface TopT {
  readonly k: "top";
  readonly free: Free;
}

/**
 * What the fast path cannot evaluate. `def`: the definition it was compiled from, whose evaluated
 * value still stands for a use that adds nothing to it (`flap: #Flap` left alone).
 */
export interface BadT {
  readonly k: "bad";
  readonly def: Vertex | undefined;
  readonly free: Free;
}

export type FastType = StructT | ScalarT | DisjT | ListT | TopT | BadT;

/**
 * The pattern label aliases a type refers to that are bound outside it: a use of such a type needs
 * {@link Binds} (and is not the same for every use).
 */
export type Free = readonly ast.PatternLabel[];

const NO_FREE: Free = [];

function union(a: Free, b: Free): Free {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out = a.slice();
  for (const x of b) if (!out.includes(x)) out.push(x);
  return out;
}

const BAD: BadT = { k: "bad", def: undefined, free: NO_FREE };
const TOP_T: TopT = { k: "top", free: NO_FREE };

function scalarT(parts: readonly ScalarPart[]): ScalarT {
  return { k: "scalar", parts, free: NO_FREE };
}

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
  /** The pattern label aliases in scope, innermost first. */
  readonly aliases: readonly AliasScope[];
}

/** A pattern label alias in scope, and how many of the scope's `lits` were outside it. */
interface AliasScope {
  readonly name: string;
  readonly label: ast.PatternLabel;
  readonly depth: number;
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

/**
 * `#D & {f: v}`: a definition unified with struct literals (in the order written). The definition
 * alone decides what is allowed (the literals' fields must be among its own); the literals' fields
 * keep the closedness of the use's context, as the evaluator's literal conjuncts do, while the
 * definition's fields and patterns are closed by it. A field both declare as structs merges the
 * same way, recursively. Undefined when no operand is a struct literal (the scalar forms below take
 * those); BAD for other combinations.
 */
function compileAnd(e: ast.Binary, scope: TypeScope): FastType | undefined {
  const ops: ast.Expr[] = [];
  splitAnd(e, ops);
  if (!ops.some((x) => x.kind === "Struct")) return undefined;
  let def: StructT | undefined;
  let out: StructT | undefined;
  for (const op of ops) {
    const t = compileExpr(op, scope);
    if (t.k !== "struct") return BAD;
    if (op.kind === "Struct") {
      if (t.closes) return BAD;
      out = out === undefined ? t : merge(out, def !== undefined, t, false);
    } else {
      if (def !== undefined || t.def === undefined) return BAD;
      def = t;
      out = out === undefined ? pinClosed(t) : merge(out, false, pinClosed(t), true);
    }
    if (out === undefined) return BAD;
  }
  return def === undefined ? BAD : out;
}

/** A definition's type as part of a merged one: its fields and patterns closed by it. */
function pinClosed(t: StructT): StructT {
  return {
    ...t,
    fields: t.fields.map((f) => ({ ...f, uses: [f.uses[1], f.uses[1]] as const })),
    patterns: t.patterns.map((p) => ({ ...p, uses: [p.uses[1], p.uses[1]] as const })),
    def: undefined,
    closes: true,
  };
}

/**
 * `a & b` where exactly one side closes (`aCloses`: a; else b, already pinned). The other side must
 * only declare fields. Undefined when they do not combine this way.
 */
function merge(a: StructT, aCloses: boolean, b: StructT, bCloses: boolean): StructT | undefined {
  if (aCloses === bCloses) return undefined;
  const closing = aCloses ? a : b;
  const other = aCloses ? b : a;
  if (other.patterns.length > 0 || other.open || other.embeds || other.closes) return undefined;
  const fields = a.fields.slice();
  for (const f of b.fields) {
    const i = fields.findIndex((g) => g.label === f.label);
    const g = fields[i];
    const x = g?.uses[1].type;
    const y = f.uses[1].type;
    const m =
      g !== undefined && x?.k === "struct" && y.k === "struct"
        ? merge(aCloses ? pinClosed(x) : x, aCloses, bCloses ? pinClosed(y) : y, bCloses)
        : undefined;
    // Both declare a struct: one field whose type is both, in declaration order (else two fields,
    // whose closedness the fast path checks each on its own).
    if (g !== undefined && m !== undefined) {
      fields[i] = { label: f.label, ft: Math.min(g.ft, f.ft), uses: uses(g.uses[1].expr, m), declared: true };
    } else fields.push(f);
  }
  const labels = closing.labels;
  return {
    k: "struct",
    fields: fields.map((f) => (f.declared === labels.has(f.label) ? f : { ...f, declared: !f.declared })),
    patterns: closing.patterns,
    labels: closing.labels,
    open: closing.open,
    embeds: false,
    def: undefined,
    closes: true,
    free: union(a.free, b.free),
  };
}

function splitAnd(e: ast.Expr, out: ast.Expr[]): void {
  let x = e;
  while (x.kind === "Paren") x = x.expr;
  if (x.kind === "Binary" && x.op === "&") {
    splitAnd(x.left, out);
    splitAnd(x.right, out);
  } else out.push(x);
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
      out.push(part(k, 1));
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
        out.push(part(d, 2));
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
      out.push(part(v, 1));
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
  out.push(part(v, 1));
  return scalarOk(v);
}

/** A disjunction whose alternatives are all definitions of structs (a tagged union). */
function compileDisj(e: ast.Binary, env: Frame, def: Vertex | undefined): FastType {
  const terms: TermT[] = [];
  if (!flatten(e, env, terms, 0)) return BAD;
  return { k: "disj", terms, tag: tagOf(terms), def, free: NO_FREE };
}

function tagOf(terms: readonly TermT[]): DisjT["tag"] {
  let label: string | undefined;
  const byValue = new Map<string, TermT>();
  for (const t of terms) {
    if (t.lits === null || t.lits.size !== 1) return undefined;
    for (const [l, v] of t.lits) {
      if ((label !== undefined && l !== label) || v.t !== "string" || byValue.has(v.v)) return undefined;
      label = l;
      byValue.set(v.v, t);
    }
  }
  return label === undefined ? undefined : { label, terms: byValue };
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
