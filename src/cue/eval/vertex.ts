/**
 * The evaluation graph. A {@link Vertex} is one node of the configuration tree (a field, a list
 * element, the root); it collects conjuncts — expressions with the environment they were written in —
 * and is evaluated once into arcs (child vertices) and a scalar part. References to a struct re-add
 * the referenced vertex's conjuncts, so that the references inside it see the unified result (as the
 * spec requires for `#D & {a: 1}`).
 */

import type * as ast from "../syntax/ast.js";
import { identLabel } from "../syntax/index.js";
import type { Pos } from "../syntax/position.js";
import { countVertex } from "./engine.js";
import { exprText } from "./print-expr.js";
import { type BottomV, formatValue, TOP, type Value } from "./values.js";

/** A lexical environment: the vertex a struct literal's fields live in, plus local bindings. */
export interface Frame {
  readonly up: Frame | undefined;
  readonly vertex: Vertex;
  /** Declared names of the struct literal (fields, lets, field aliases), if this frame is one. */
  readonly scope: Scope | undefined;
  /** The struct literal whose declarations this frame binds (looked up on demand). */
  readonly lit: ast.StructLit | undefined;
  /** Comprehension variables, pattern label aliases, value aliases. */
  readonly binds: Map<string, Binding> | undefined;
  /** Let values, created on first use. */
  lets: Map<ast.LetClause, Vertex> | undefined;
  /** Import name → package path (file frames only). */
  readonly imports: Map<string, string> | undefined;
  /** The elements of a list literal: a block of its own for `self` (aliasv2). */
  readonly list?: boolean;
  /** Code inside a `try` clause, where `x?` may be written (the try experiment). */
  readonly tryScope?: boolean;
}

export type Binding =
  | { readonly t: "vertex"; readonly v: Vertex }
  | { readonly t: "value"; readonly v: Value };

/** What a name declared in a struct literal denotes. */
export type ScopeEntry =
  | { readonly t: "field"; readonly label: string }
  | { readonly t: "let"; readonly decl: ast.LetClause }
  /** `K` of `label~(K,V)` (aliasv2): the label itself, a string. */
  | { readonly t: "label"; readonly value: string }
  /** The alias of a field with a computed label: the field whose label the expression yields. */
  | { readonly t: "dynamic"; readonly field: ast.Field };

export type Scope = ReadonlyMap<string, ScopeEntry>;

/** A closedness context: one reference to a definition (or one `close()`), per vertex level. */
export class CloseCtx {
  readonly recursive: boolean;
  /** An embedded definition does not close the struct it is embedded in (only below it). */
  skipAt: Vertex | undefined;
  /**
   * Created by a struct literal that embeds a definition: it only closes when the embedded value
   * turned out to be a struct (it then registered a literal of its own besides the embedding one).
   */
  fromEmbed = false;
  /**
   * Set when the definition was embedded as an operand of `&` (`{#A & {b: 1}}`): the fields the
   * other operands declare at the embedding struct must be allowed by it too.
   */
  andScope: AndScope | undefined;
  /**
   * Set for a definition embedded as an operand of `&` inside an already closed context
   * (`#D: {#A & #B}`): it closes nothing by itself, but what its records allow counts for the
   * enclosing contexts only where every definition of the same `&` allows it too (the embedded
   * value is `#A & #B`, which allows only what both do).
   */
  andMember: AndScope | undefined = undefined;
  /** For a reference to a definition: the definition, and the vertex the reference was expanded at. */
  def: Vertex | undefined = undefined;
  defAt: Vertex | undefined = undefined;
  /**
   * Set for a `close()` or a definition met inside an embedded value (see {@link EmbMark}): it
   * does not refuse a field that the struct embedding that value declares itself.
   */
  embIn: EmbMark | undefined = undefined;
  #children: Map<string, CloseCtx> | undefined;
  constructor(recursive: boolean) {
    this.recursive = recursive;
  }
  child(label: string): CloseCtx {
    this.#children ??= new Map();
    let c = this.#children.get(label);
    if (c === undefined) {
      c = new CloseCtx(true);
      this.#children.set(label, c);
    }
    return c;
  }
}

/** The struct literals the operands of one embedded `&` expression contribute to its struct. */
export interface AndScope {
  readonly lits: ast.StructLit[];
}

export type CloseSet = readonly CloseCtx[];

/**
 * Where a conjunct stands among the embeddings of a struct (cue's `outerID` and `enclosingEmbed`,
 * typocheck.go): `s` is the outermost struct literal with embeddings it came from, `e` the
 * embedding inside it (undefined for that struct's own fields). Both pass to the fields below.
 */
export interface EmbMark {
  readonly s: object;
  readonly e: EmbScope | undefined;
}

/** One embedding; `parent` is the embedding it is nested in. */
export interface EmbScope {
  readonly parent: EmbScope | undefined;
}

// The conjuncts of a vertex that has none yet (one array for all of them).
const NO_CONJUNCTS: Conjunct[] = [];
export const NO_CLOSE: CloseSet = [];

/** Labels a closedness context allows at one vertex: those of its struct literals, plus extras. */
export interface Group {
  readonly ctx: CloseCtx;
  lits: ast.StructLit[];
  /** Labels of dynamic and comprehension-generated fields. */
  extra: string[] | undefined;
  patterns: PatternEntry[] | undefined;
  open: boolean;
}

const litLabels = new WeakMap<ast.StructLit, Set<string>>();

/** The static field labels a struct literal declares (cached per syntax node). */
export function staticLabels(lit: ast.StructLit): Set<string> {
  let s = litLabels.get(lit);
  if (s === undefined) {
    s = new Set();
    for (const d of lit.decls) {
      if (d.kind !== "Field") continue;
      const name = identLabel(d);
      if (name !== undefined) {
        s.add(name);
        continue;
      }
      const l = d.label;
      if (l.kind === "String") s.add(strLabel(l.value));
    }
    litLabels.set(lit, s);
  }
  return s;
}

/** Whether a group closes its vertex at all (see CloseCtx.fromEmbed). */
export function groupActive(g: Group): boolean {
  if (g.ctx.andMember !== undefined) return false;
  return !g.ctx.fromEmbed || g.lits.length > 1 || g.patterns !== undefined || g.open;
}

/** Whether a group allows a label (patterns aside). */
export function groupHas(g: Group, label: string): boolean {
  for (const l of g.lits) if (staticLabels(l).has(label)) return true;
  return g.extra?.includes(label) === true;
}

/** An expression to unify into a vertex, with its environment. Either `expr` or `value` is set. */
export interface Conjunct {
  readonly expr: ast.Expr | undefined;
  readonly env: Frame;
  readonly ctx: CloseSet;
  readonly value: Value | undefined;
  readonly pos: Pos;
  /** Set for embedded expressions: an embedded definition does not close the embedding struct. */
  readonly embed: boolean;
  /**
   * Set for `x...` (explicitopen) and what it expands to: nothing this conjunct brings closes the
   * vertex itself (definitions and `close()` still close what lies below it).
   */
  readonly open?: boolean;
  /** Set for the operands of an embedded `&` (see {@link CloseCtx.andScope}). */
  readonly andScope?: AndScope;
  /** The references this conjunct was expanded through, innermost first (see {@link RefLink}). */
  readonly refs?: RefLink;
  /** The conjunct's cycle state, cue's CycleType: 0 or unset none, then {@link CYC_OPTIONAL}…. */
  readonly cyc?: number;
  /** Its place among a struct's embeddings, where it came from one that embeds (see {@link EmbMark}). */
  readonly emb?: EmbMark;
}

/**
 * One reference a conjunct was expanded through: the vertex referred to (`arc`) and the vertex it
 * was expanded into (`node`). cue's per-conjunct cycle history (adt/cycle.go, RefNode): a conjunct
 * in an optional position (a disjunct, an optional field, a pattern, a list's `...T`) that meets a
 * reference it was expanded through already is allowed one more round with its history cleared;
 * the next repetition is a structural cycle.
 */
/** One reference expanded into a vertex (collect.ts, expandedAlready). */
export interface Expansion {
  readonly r: Vertex;
  readonly c: Conjunct;
  readonly refs: RefLink | undefined;
  readonly cyc: number | undefined;
}

export interface RefLink {
  readonly arc: Vertex;
  readonly node: Vertex;
  readonly next: RefLink | undefined;
  /**
   * Set where cue shares `arc` (the vertex's one conjunct is this reference): what lies below is
   * `arc`'s own evaluation, where a reference back to `arc` is one to an ancestor.
   */
  readonly shared?: boolean;
}

/** A conjunct reached through a disjunct, optional field, pattern or `...T` (cue's IsOptional). */
export const CYC_OPTIONAL = 1;
/** An optional conjunct that repeated a reference once, its history cleared (cue's MaybeCyclic). */
export const CYC_MAYBE = 2;
/** A conjunct that met a structural cycle but was kept for the vertex's other conjuncts (IsCyclic). */
export const CYC_CYCLIC = 3;

/** A pattern constraint `[p]: v` collected on a vertex. */
export interface PatternEntry {
  readonly field: ast.Field;
  readonly label: ast.PatternLabel;
  readonly env: Frame;
  readonly ctx: CloseSet;
  /** The cycle history of the struct's conjunct (see {@link Conjunct.refs}). */
  readonly refs?: RefLink;
  readonly cyc?: number;
  /** The evaluated pattern value, computed on first use. */
  pattern: Value | undefined;
}

/** Work postponed until the static fields are known: comprehensions and dynamic fields. */
export interface Deferred {
  readonly decl: ast.Comprehension | ast.Field;
  readonly env: Frame;
  readonly ctx: CloseSet;
}

/** One list literal unified into a vertex. */
export interface ListPart {
  readonly len: number;
  readonly open: boolean;
  readonly rest: ast.Expr | undefined;
  readonly env: Frame;
  readonly ctx: CloseSet;
  readonly pos: Pos;
  /** The cycle history of the list's conjunct (see {@link Conjunct.refs}). */
  readonly refs?: RefLink;
  readonly cyc?: number;
}

/** How a field participates: regular fields are output; optional/required are constraints. */
export const REGULAR = 0;
export const REQUIRED = 1;
export const OPTIONAL = 2;

export const NEW = 0;
export const COLLECTING = 1;
export const EVALUATED = 2;

/** A disjunction left unresolved on a vertex (several terms survived). */
export interface VertexDisj {
  readonly values: Vertex[];
  readonly defaults: boolean[];
  readonly hasDefault: boolean;
}

/** The one default of an unresolved disjunction; undefined when it has none or several. */
export function soleDefault(d: VertexDisj): Vertex | undefined {
  if (!d.hasDefault) return undefined;
  let def: Vertex | undefined;
  let n = 0;
  for (let i = 0; i < d.values.length; i++) {
    if (d.defaults[i]) {
      n++;
      def = d.values[i];
    }
  }
  return n === 1 ? def : undefined;
}

function sameFrame(a: Frame, b: Frame): boolean {
  return (
    a === b ||
    (a.lit === b.lit &&
      a.vertex === b.vertex &&
      a.up === b.up &&
      a.binds === undefined &&
      b.binds === undefined)
  );
}

/**
 * The internal label of a quoted field name. `"#a"` and `"_a"` are regular fields (only identifiers
 * make definitions and hidden fields), so they are stored with a marker prefix.
 */
export function strLabel(s: string): string {
  const c = s.charCodeAt(0);
  return c === 0x23 || c === 0x5f ? `\u0001${s}` : s;
}

/** The label as written in output and messages. */
export function displayLabel(l: string): string {
  return l.charCodeAt(0) === 1 ? l.slice(1) : l;
}

/** Positions of a vertex: most have exactly one, stored without an array. */
export type PosList = Pos | Pos[] | undefined;

/** Appends a position. */
export function appendPos(list: PosList, p: Pos): PosList {
  if (list === undefined) return p;
  if (!Array.isArray(list)) return [list, p];
  if (list.length < 8) return list.concat([p]);
  list.push(p);
  return list;
}

/** Puts a position first. */
export function prependPos(list: PosList, p: Pos): PosList {
  if (list === undefined) return p;
  if (!Array.isArray(list)) return [p, list];
  return [p].concat(list);
}

/** The positions as an array. */
export function posArray(list: PosList): Pos[] {
  if (list === undefined) return [];
  return Array.isArray(list) ? list : [list];
}

/** Rarely used vertex state, allocated on first use (keeps the common vertex small). */
class VertexExtra {
  listParts: ListPart[] | undefined = undefined;
  listLen = 0;
  patterns: PatternEntry[] | undefined = undefined;
  deferred: Deferred[] | undefined = undefined;
  closeItems: unknown[] | undefined = undefined;
  disj: VertexDisj | undefined = undefined;
  choices: Map<ast.Node, number[]> | undefined = undefined;
  seen: ast.Node[] | undefined = undefined;
  pending: import("./disjunction.js").PendingDisj[] | undefined = undefined;
  cycleErr: BottomV | undefined = undefined;
  cloneOf: Vertex | undefined = undefined;
  cycleAt: Vertex | null | undefined = undefined;
}

// Bit layout of Vertex flags.
const FT_MASK = 3; // fieldType: bits 0-1
const ST_SHIFT = 2; // status: bits 2-3
const SM_SHIFT = 4; // structMark: bits 4-5
const IS_LIST = 1 << 6;
const LIST_OPEN = 1 << 7;
const PATTERNS_APPLIED = 1 << 8;
const LATE = 1 << 9;
const NOT_ALLOWED = 1 << 10;
const IS_LET = 1 << 11;
const SHARED = 1 << 12;
const ELLIPSIS = 1 << 13;
const LATE_ADD = 1 << 14;
const BORROWED = 1 << 15;
const SHARE_SHIFT = 16; // shareState: bits 16-17
const CYCLIC = 1 << 18;
const CYCLE_RETRY = 1 << 19;
const REF_CYCLIC = 1 << 20;
const HAS_TOP = 1 << 21;

export class Vertex {
  parent: Vertex | undefined;
  label: string;
  /** Shared while empty (never modified in place below eight entries, see addConj). */
  conjuncts: Conjunct[] = NO_CONJUNCTS;
  arcs: Map<string, Vertex> | undefined = undefined;
  scalar: Value = TOP;
  scalarPos: PosList = undefined;
  /** The error of this vertex itself (children keep their own). */
  err: BottomV | undefined = undefined;
  /** Where the field was declared (labels), for export positions and messages. */
  declPos: PosList = undefined;
  /** The vertices whose references were expanded into this one (structural cycle detection). */
  expanded: Vertex | Vertex[] | undefined = undefined;
  /** The references expanded into this vertex in its collection pass, with their conjuncts (collect.ts). */
  expansions: Expansion[] | undefined = undefined;
  depth: number;
  #flags = OPTIONAL;
  #x: VertexExtra | undefined = undefined;

  #extra(): VertexExtra {
    this.#x ??= new VertexExtra();
    return this.#x;
  }
  #bit(mask: number, on: boolean): void {
    this.#flags = on ? this.#flags | mask : this.#flags & ~mask;
  }

  /** REGULAR, REQUIRED or OPTIONAL (the strongest contribution wins). */
  get fieldType(): number {
    return this.#flags & FT_MASK;
  }
  set fieldType(v: number) {
    this.#flags = (this.#flags & ~FT_MASK) | v;
  }
  get status(): number {
    return (this.#flags >> ST_SHIFT) & 3;
  }
  set status(v: number) {
    this.#flags = (this.#flags & ~(3 << ST_SHIFT)) | (v << ST_SHIFT);
  }
  /** 0: no struct literal; 1: only embeddings/hidden fields (may be a scalar); 2: a real struct. */
  get structMark(): number {
    return (this.#flags >> SM_SHIFT) & 3;
  }
  set structMark(v: number) {
    this.#flags = (this.#flags & ~(3 << SM_SHIFT)) | (v << SM_SHIFT);
  }
  get isList(): boolean {
    return (this.#flags & IS_LIST) !== 0;
  }
  set isList(v: boolean) {
    this.#bit(IS_LIST, v);
  }
  get listOpen(): boolean {
    return (this.#flags & LIST_OPEN) !== 0;
  }
  set listOpen(v: boolean) {
    this.#bit(LIST_OPEN, v);
  }
  get patternsApplied(): boolean {
    return (this.#flags & PATTERNS_APPLIED) !== 0;
  }
  set patternsApplied(v: boolean) {
    this.#bit(PATTERNS_APPLIED, v);
  }
  /** Conjuncts arrived after evaluation (re-evaluate before use). */
  get lateConjuncts(): boolean {
    return (this.#flags & LATE) !== 0;
  }
  set lateConjuncts(v: boolean) {
    this.#bit(LATE, v);
  }
  /** Rejected by a closed struct. */
  get notAllowed(): boolean {
    return (this.#flags & NOT_ALLOWED) !== 0;
  }
  set notAllowed(v: boolean) {
    this.#bit(NOT_ALLOWED, v);
  }
  /**
   * A leaf shared by every struct that has the same constant field from the same declaration
   * (definition fields such as `retries: *3 | int` repeated per instance). Never mutated: whoever
   * needs to add to it first replaces it with a private copy (`unshare`).
   */
  get isShared(): boolean {
    return (this.#flags & SHARED) !== 0;
  }
  set isShared(v: boolean) {
    this.#bit(SHARED, v);
  }
  /** Some struct literal of this vertex has `...`. */
  get hasEllipsis(): boolean {
    return (this.#flags & ELLIPSIS) !== 0;
  }
  set hasEllipsis(v: boolean) {
    this.#bit(ELLIPSIS, v);
  }
  /**
   * This vertex or one below it received a conjunct after its evaluation had started: evaluating
   * it again from its conjuncts could give another result, so export never releases it.
   */
  get lateAdded(): boolean {
    return (this.#flags & LATE_ADD) !== 0;
  }
  /**
   * The arcs belong to the evaluated definition this field refers to (structure sharing, see
   * share.ts): never modify them through this vertex.
   */
  get borrowed(): boolean {
    return (this.#flags & BORROWED) !== 0;
  }
  set borrowed(v: boolean) {
    this.#bit(BORROWED, v);
  }
  /**
   * Evaluating this vertex read a vertex whose evaluation was in progress (a reference cycle): its
   * result may depend on the order of evaluation, so it is not shared.
   */
  get cyclic(): boolean {
    return (this.#flags & CYCLIC) !== 0;
  }
  set cyclic(v: boolean) {
    this.#bit(CYCLIC, v);
  }
  /** Whether this evaluated subtree can be shared: 0 not known yet, 1 yes, 2 no. */
  get shareState(): number {
    return (this.#flags >> SHARE_SHIFT) & 3;
  }
  set shareState(v: number) {
    this.#flags = (this.#flags & ~(3 << SHARE_SHIFT)) | (v << SHARE_SHIFT);
  }
  /** A let binding's vertex (not an arc of its parent). */
  get isLet(): boolean {
    return (this.#flags & IS_LET) !== 0;
  }
  set isLet(v: boolean) {
    this.#bit(IS_LET, v);
  }

  get listParts(): ListPart[] | undefined {
    return this.#x?.listParts;
  }
  set listParts(v: ListPart[] | undefined) {
    if (v !== undefined || this.#x !== undefined) this.#extra().listParts = v;
  }
  /** Number of elements of a list (after evaluation); open lists may grow by unification. */
  get listLen(): number {
    return this.#x?.listLen ?? 0;
  }
  set listLen(v: number) {
    if (v !== 0 || this.#x !== undefined) this.#extra().listLen = v;
  }
  get patterns(): PatternEntry[] | undefined {
    return this.#x?.patterns;
  }
  set patterns(v: PatternEntry[] | undefined) {
    if (v !== undefined || this.#x !== undefined) this.#extra().patterns = v;
  }
  get deferred(): Deferred[] | undefined {
    return this.#x?.deferred;
  }
  set deferred(v: Deferred[] | undefined) {
    if (v !== undefined || this.#x !== undefined) this.#extra().deferred = v;
  }
  /** Closedness records `[ctxSet, item, …]` (see closedness.ts). */
  get closeItems(): unknown[] | undefined {
    return this.#x?.closeItems;
  }
  set closeItems(v: unknown[] | undefined) {
    if (v !== undefined || this.#x !== undefined) this.#extra().closeItems = v;
  }
  get disj(): VertexDisj | undefined {
    return this.#x?.disj;
  }
  set disj(v: VertexDisj | undefined) {
    if (v !== undefined || this.#x !== undefined) this.#extra().disj = v;
  }
  /** Disjunction choices forced on this vertex (a disjunct clone): node → term per occurrence. */
  get choices(): Map<ast.Node, number[]> | undefined {
    return this.#x?.choices;
  }
  set choices(v: Map<ast.Node, number[]> | undefined) {
    if (v !== undefined || this.#x !== undefined) this.#extra().choices = v;
  }
  /** Disjunction nodes met while collecting, in order (occurrence numbers for `choices`). */
  get seen(): ast.Node[] | undefined {
    return this.#x?.seen;
  }
  set seen(v: ast.Node[] | undefined) {
    if (v !== undefined || this.#x !== undefined) this.#extra().seen = v;
  }
  /** Disjunctions waiting to be resolved after collection. */
  get pending(): import("./disjunction.js").PendingDisj[] | undefined {
    return this.#x?.pending;
  }
  set pending(v: import("./disjunction.js").PendingDisj[] | undefined) {
    if (v !== undefined || this.#x !== undefined) this.#extra().pending = v;
  }
  /** A reference cycle met while collecting; an error only if the vertex stays non-concrete. */
  get cycleErr(): BottomV | undefined {
    return this.#x?.cycleErr;
  }
  set cycleErr(v: BottomV | undefined) {
    if (v !== undefined || this.#x !== undefined) this.#extra().cycleErr = v;
  }
  /**
   * Evaluating this vertex read the value of a field whose evaluation was in progress (a reference
   * cycle proper, not only an order-dependent read): its value is provisional for that field.
   */
  get refCyclic(): boolean {
    return (this.#flags & REF_CYCLIC) !== 0;
  }
  set refCyclic(v: boolean) {
    this.#bit(REF_CYCLIC, v);
  }
  /**
   * `_` was unified in (cue's `hasTop`): a struct literal that only embeds (`{let x = 1, _}`) then
   * stays `_` unless it gains a regular field (evaluate.ts, checkKinds).
   */
  get hasTop(): boolean {
    return (this.#flags & HAS_TOP) !== 0;
  }
  set hasTop(v: boolean) {
    this.#bit(HAS_TOP, v);
  }
  /**
   * The value was decided while a reference cycle was open (see `cycleAt`): the next read after
   * the cycle closed evaluates the vertex again.
   */
  get cycleRetry(): boolean {
    return (this.#flags & CYCLE_RETRY) !== 0;
  }
  set cycleRetry(v: boolean) {
    this.#bit(CYCLE_RETRY, v);
  }
  /**
   * The vertex whose evaluation was in progress when this one met a reference cycle (retried once
   * that evaluation is over); null once retried.
   */
  get cycleAt(): Vertex | null | undefined {
    return this.#x?.cycleAt;
  }
  set cycleAt(v: Vertex | null | undefined) {
    if (v !== undefined || this.#x !== undefined) this.#extra().cycleAt = v;
  }
  /** The vertex this one is a disjunct clone of. */
  get cloneOf(): Vertex | undefined {
    return this.#x?.cloneOf;
  }
  set cloneOf(v: Vertex | undefined) {
    if (v !== undefined || this.#x !== undefined) this.#extra().cloneOf = v;
  }

  constructor(parent: Vertex | undefined, label: string) {
    countVertex();
    this.parent = parent;
    this.label = label;
    this.depth = parent === undefined ? 0 : parent.depth + 1;
  }

  /**
   * Forgets everything evaluation computed (back to NEW with the same conjuncts, field type and
   * positions), so that the evaluated subtree can be reclaimed; evaluating again gives the same
   * result. See export-walk.ts for when this is safe.
   */
  forget(): void {
    this.arcs = undefined;
    this.scalar = TOP;
    this.scalarPos = undefined;
    this.err = undefined;
    this.expanded = undefined;
    this.expansions = undefined;
    this.#flags &= FT_MASK | IS_LET;
    this.#x = undefined;
  }

  /** Adds a conjunct (small arrays are kept exact-size: most vertices have one to three). */
  addConj(c: Conjunct): void {
    if ((this.#flags & (3 << ST_SHIFT)) !== NEW << ST_SHIFT) {
      for (let v: Vertex | undefined = this; v !== undefined && !v.lateAdded; v = v.parent)
        v.#flags |= LATE_ADD;
    }
    const cs = this.conjuncts;
    if (c.expr !== undefined) {
      // The same expression reaching a vertex twice through equivalent scopes (e.g. a definition
      // referenced by a field and by a pattern) is one conjunct.
      for (const d of cs) if (d.expr === c.expr && sameFrame(d.env, c.env)) return;
    }
    const n = cs.length;
    if (n === 0) this.conjuncts = [c];
    else if (n === 1) this.conjuncts = [cs[0] as Conjunct, c];
    else if (n < 8) this.conjuncts = cs.concat([c]);
    else cs.push(c);
  }

  /** The path of labels from the root. */
  path(): string[] {
    const out: string[] = [];
    for (let v: Vertex | undefined = this; v?.parent !== undefined; v = v.parent)
      out.push(displayLabel(v.label));
    return out.reverse();
  }

  /** The arc with this label, created on demand. */
  arc(label: string): Vertex {
    this.arcs ??= new Map();
    let a = this.arcs.get(label);
    if (a === undefined) {
      a = new Vertex(this, label);
      this.arcs.set(label, a);
    }
    return a;
  }

  isDefinition(): boolean {
    return this.label.startsWith("#") || this.label.startsWith("_#");
  }

  /** Short text for messages (`{a:1}`, `[]`). */
  shortText(): string {
    if (this.isList) {
      // `[1,2]`, `[...string]`: evaluated elements, then the type of further elements if open.
      const items: string[] = [];
      for (let i = 0; i < this.listLen && i < 4; i++) {
        const a = this.arcs?.get(String(i));
        items.push(
          a !== undefined && a.status >= EVALUATED && a.arcs === undefined ? formatValue(a.scalar) : "_",
        );
      }
      if (this.listOpen) {
        const rest = this.listParts?.find((p) => p.rest !== undefined)?.rest;
        items.push(`...${rest !== undefined ? exprText(rest) : ""}`);
      }
      return `[${items.join(",")}]`;
    }
    const parts: string[] = [];
    if (this.arcs !== undefined) {
      for (const [k, a] of this.arcs) {
        if (a.fieldType !== REGULAR) continue;
        parts.push(`${k}:${a.status >= EVALUATED && a.arcs === undefined ? formatValue(a.scalar) : "_"}`);
        if (parts.length > 3) break;
      }
    }
    return `{${parts.join(",")}}`;
  }
}
