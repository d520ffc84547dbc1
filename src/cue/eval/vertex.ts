/**
 * The evaluation graph. A {@link Vertex} is one node of the configuration tree (a field, a list
 * element, the root); it collects conjuncts — expressions with the environment they were written in —
 * and is evaluated once into arcs (child vertices) and a scalar part. References to a struct re-add
 * the referenced vertex's conjuncts, so that the references inside it see the unified result (as the
 * spec requires for `#D & {a: 1}`).
 */

import type * as ast from "../syntax/ast.js";
import type { Pos } from "../syntax/position.js";
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
}

export type Binding =
  | { readonly t: "vertex"; readonly v: Vertex }
  | { readonly t: "value"; readonly v: Value };

/** What a name declared in a struct literal denotes. */
export type ScopeEntry =
  | { readonly t: "field"; readonly label: string }
  | { readonly t: "let"; readonly decl: ast.LetClause };

export type Scope = ReadonlyMap<string, ScopeEntry>;

/** A closedness context: one reference to a definition (or one `close()`), per vertex level. */
export class CloseCtx {
  readonly recursive: boolean;
  /** An embedded definition does not close the struct it is embedded in (only below it). */
  skipAt: Vertex | undefined;
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

export type CloseSet = readonly CloseCtx[];
export const NO_CLOSE: CloseSet = [];

/** Labels a closedness context allows at one vertex. */
export interface Group {
  readonly labels: Set<string>;
  readonly patterns: PatternEntry[];
  open: boolean;
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
}

/** A pattern constraint `[p]: v` collected on a vertex. */
export interface PatternEntry {
  readonly field: ast.Field;
  readonly label: ast.PatternLabel;
  readonly env: Frame;
  readonly ctx: CloseSet;
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

/** Appends a position, keeping small arrays exact-size. */
export function appendPos(arr: Pos[] | undefined, p: Pos): Pos[] {
  if (arr === undefined) return [p];
  if (arr.length < 8) return [...arr, p];
  arr.push(p);
  return arr;
}

export class Vertex {
  parent: Vertex | undefined;
  label: string;
  conjuncts: Conjunct[] = [];
  arcs: Map<string, Vertex> | undefined;
  /** REGULAR, REQUIRED or OPTIONAL (the strongest contribution wins). */
  fieldType = OPTIONAL;
  status = NEW;
  scalar: Value = TOP;
  scalarPos: Pos[] | undefined;
  /** 0: no struct literal; 1: only embeddings/hidden fields (may be a scalar); 2: a real struct. */
  structMark = 0;
  isList = false;
  listParts: ListPart[] | undefined;
  /** Number of elements of a list (after evaluation); open lists may grow by unification. */
  listLen = 0;
  listOpen = false;
  patterns: PatternEntry[] | undefined;
  patternsApplied = false;
  deferred: Deferred[] | undefined;
  groups: Map<CloseCtx, Group> | undefined;
  /** The error of this vertex itself (children keep their own). */
  err: BottomV | undefined;
  disj: VertexDisj | undefined;
  /** Where the field was declared (labels), for export positions and messages. */
  declPos: Pos[] | undefined;
  /** Disjunction choices forced on this vertex (a disjunct clone): node → term per occurrence. */
  choices: Map<ast.Node, number[]> | undefined;
  /** Occurrence counters of disjunction nodes met while collecting (for `choices`). */
  seen: ast.Node[] | undefined;
  /** Vertices being expanded into this one (reference cycle detection). */
  expanding: Vertex[] | undefined;
  /** Vertices expanded into this one (structural cycle detection). */
  expanded: Vertex[] | undefined;
  depth: number;
  /** Disjunctions waiting to be resolved after collection. */
  pending: import("./disjunction.js").PendingDisj[] | undefined;
  /** Conjuncts arrived after evaluation (re-evaluate before use). */
  lateConjuncts = false;
  /** Rejected by a closed struct. */
  notAllowed = false;
  /** A reference cycle met while collecting; an error only if the vertex stays non-concrete. */
  cycleErr: BottomV | undefined;
  /** The vertex this one is a disjunct clone of. */
  cloneOf: Vertex | undefined;
  /** A let binding's vertex (not an arc of its parent). */
  isLet = false;

  constructor(parent: Vertex | undefined, label: string) {
    counters.vertices++;
    this.parent = parent;
    this.label = label;
    this.depth = parent === undefined ? 0 : parent.depth + 1;
  }

  /** Adds a conjunct (small arrays are kept exact-size: most vertices have one to three). */
  addConj(c: Conjunct): void {
    const cs = this.conjuncts;
    if (c.expr !== undefined) {
      // The same expression reaching a vertex twice through equivalent scopes (e.g. a definition
      // referenced by a field and by a pattern) is one conjunct.
      for (const d of cs) if (d.expr === c.expr && sameFrame(d.env, c.env)) return;
    }
    if (cs.length < 8) this.conjuncts = [...cs, c];
    else cs.push(c);
  }

  /** The path of labels from the root. */
  path(): string[] {
    const out: string[] = [];
    for (let v: Vertex | undefined = this; v?.parent !== undefined; v = v.parent) out.push(v.label);
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
    if (this.isList) return "[]";
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
export const counters = { vertices: 0, clones: 0 };
