/**
 * Compiled types for the fast export path (`fast-export.ts`): what a definition such as `#Host`
 * compiles to (`fast-compile.ts`) — its fields in declaration order, each with its constraint as
 * the scalar values the general evaluator would unify, nested structs, lists, pattern constraints
 * (with their label aliases) and tagged unions — and {@link Use}, one declared value as a conjunct
 * of a vertex being exported. Only what is the same for every use is compiled; a label alias's
 * value is bound per use ({@link Binds}). What the fast path cannot evaluate is {@link BadT}.
 */

import type * as ast from "../syntax/ast.js";
import type { Value } from "./values.js";
import type { Frame, Vertex } from "./vertex.js";

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

/** A part whose value is the same for every use. */
export function part(value: Value, phase: 0 | 1 | 2): ScalarPart {
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

/** The open and closed uses of a declared value. */
export function uses(expr: ast.Expr, type: FastType): Uses {
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

export const NO_FREE: Free = [];

export function union(a: Free, b: Free): Free {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out = a.slice();
  for (const x of b) if (!out.includes(x)) out.push(x);
  return out;
}

export const BAD: BadT = { k: "bad", def: undefined, free: NO_FREE };
export const TOP_T: TopT = { k: "top", free: NO_FREE };

export function scalarT(parts: readonly ScalarPart[]): ScalarT {
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
export interface AliasScope {
  readonly name: string;
  readonly label: ast.PatternLabel;
  readonly depth: number;
}
