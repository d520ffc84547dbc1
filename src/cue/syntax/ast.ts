/**
 * The CUE abstract syntax tree produced by the parser (CUE v0.17 grammar, `doc/ref/spec.md`).
 *
 * Every node is a plain object discriminated by `kind`, with `pos` (where it starts) and `end` (the
 * 0-based offset just past its last character, in the same file as `pos`). The tree is faithful to
 * the source except for two documented conveniences:
 *  - `a: b: c: 1` is a Field whose value is a Struct with `implicit: true` holding field `b`, and so on;
 *  - literal values are decoded (escapes processed, multi-line indentation stripped, numbers with
 *    `_`, `0x`, SI multipliers evaluated).
 *
 * Identifiers are not classified by the parser: `#Def`, `_hidden`, `_#hiddenDef`, `$x`, `_` (top),
 * `int`, `len`... are all `Ident` nodes; see {@link identKind}.
 */

import type { Pos } from "./position.js";

/** Fields every node has. */
export interface NodeBase {
  /** Where the node starts. */
  readonly pos: Pos;
  /** 0-based offset just past the node's last character (same file as `pos`). */
  readonly end: number;
}

// ---------------------------------------------------------------------------------------------
// File level

/** One parsed `.cue` file. */
export interface File extends NodeBase {
  readonly kind: "File";
  readonly filename: string;
  /** `package name`, if present. */
  readonly packageName?: Ident;
  /** Attributes written before the package clause (e.g. `@if(foo)`), in order. */
  readonly fileAttributes: readonly Attribute[];
  readonly imports: readonly ImportSpec[];
  /** Top-level declarations (fields, embeddings, lets, comprehensions, decl attributes...). */
  readonly decls: readonly Decl[];
  /** All comments of the file, in order (kept for tools; the evaluator ignores them). */
  readonly comments: readonly Comment[];
}

/** One import: `import "strings"`, `import x "strings"`, `import ("a"; b "c:d")`. */
export interface ImportSpec extends NodeBase {
  readonly kind: "Import";
  /** Explicit local name, if given. */
  readonly name?: Ident;
  /** The decoded import path, e.g. `strings` or `example.com/x:pkg`. */
  readonly path: string;
}

/** A `// comment` (text without the leading `//`). */
export interface Comment extends NodeBase {
  readonly kind: "Comment";
  readonly text: string;
}

// ---------------------------------------------------------------------------------------------
// Declarations (members of files and struct literals)

/** Anything that can appear in a struct body or at the top of a file. */
export type Decl = Field | LetClause | Embed | Ellipsis | Comprehension | Attribute | BadDecl;

/** How a field participates in output. */
export type FieldConstraint = "regular" | "optional" | "required";

/**
 * `label: value`, `label?: value`, `label!: value`, `X=label: value`, `[pattern]: value`, and with
 * aliasv2 `label~X: value` (`alias` X) or `label~(K,V): value`.
 */
export interface Field extends NodeBase {
  readonly kind: "Field";
  readonly label: Label;
  /** Field alias `X=label: value` (X refers to the field's value). */
  readonly alias?: Ident;
  /** `?` optional, `!` required; `regular` otherwise (pattern labels are always `regular`). */
  readonly constraint: FieldConstraint;
  readonly value: Expr;
  /** Field attributes after the value, e.g. `@test(eq, 1)`, in order. */
  readonly attributes: readonly Attribute[];
  /**
   * `K` in `label~(K,V): value` (aliasv2) for a fixed label: names the label (a string) in the
   * enclosing scope. For `(expr)` and `[expr]` labels, K is the label's own `alias`.
   */
  readonly keyAlias?: Ident;
}

/** Label forms. Quoted labels are `String` (or `Interpolation`, which is dynamic). */
export type Label = Ident | StringLit | Interpolation | DynamicLabel | PatternLabel;

/** `(expr): value`, or `(X=expr): value` — a label computed from an expression. */
export interface DynamicLabel extends NodeBase {
  readonly kind: "DynamicLabel";
  readonly alias?: Ident;
  readonly expr: Expr;
}

/** `[expr]: value` or `[X=expr]: value` — a pattern constraint applying to every matching label. */
export interface PatternLabel extends NodeBase {
  readonly kind: "PatternLabel";
  /** `X` in `[X=expr]`, bound to the matched label (a string). */
  readonly alias?: Ident;
  readonly expr: Expr;
}

/** `let x = expr` (as a declaration or as a comprehension clause). */
export interface LetClause extends NodeBase {
  readonly kind: "Let";
  readonly ident: Ident;
  readonly expr: Expr;
}

/** An embedded expression inside a struct or file (`{ #Base, a: 1 }`). */
export interface Embed extends NodeBase {
  readonly kind: "Embed";
  readonly expr: Expr;
}

/** `...` or `...T` in a struct (opens it) or as the last element of a list. */
export interface Ellipsis extends NodeBase {
  readonly kind: "Ellipsis";
  /** The element/field type after `...`, if any. */
  readonly type?: Expr;
}

/** `@name(body)`. The body is kept raw; `parseAttributeArgs` splits it if needed. */
export interface Attribute extends NodeBase {
  readonly kind: "Attribute";
  /** The name after `@`, e.g. `test`. */
  readonly name: string;
  /** Raw text between the parentheses, e.g. `eq, {a: 1}`. */
  readonly body: string;
  /** 0-based offset of the first body character (to reparse the body with exact positions). */
  readonly bodyOffset: number;
}

/** A declaration that failed to parse (an error was reported). */
export interface BadDecl extends NodeBase {
  readonly kind: "BadDecl";
}

// ---------------------------------------------------------------------------------------------
// Comprehensions

/** `for ... if ... let ... { struct }`: in structs the struct is embedded; in lists it is an element. */
export interface Comprehension extends NodeBase {
  readonly kind: "Comprehension";
  /** At least one clause; the first is a `For`, `If` or `Try`. */
  readonly clauses: readonly Clause[];
  readonly value: StructLit;
  /** `else { … }` / `fallback { … }` (the try experiment): used when no result was produced. */
  readonly fallback?: StructLit;
}

export type Clause = ForClause | IfClause | LetClause | TryClause;

/**
 * `try x = expr` (the try experiment): binds x unless a `?` reference in expr is absent, in
 * which case the comprehension produces nothing. Without `ident`/`expr` it is the struct form
 * `try { … }`, always the last clause: the body itself is tried.
 */
export interface TryClause extends NodeBase {
  readonly kind: "Try";
  readonly ident?: Ident;
  readonly expr?: Expr;
}

/** `for v in src` or `for k, v in src`. */
export interface ForClause extends NodeBase {
  readonly kind: "For";
  readonly key?: Ident;
  readonly value: Ident;
  readonly source: Expr;
}

/** `if cond`. */
export interface IfClause extends NodeBase {
  readonly kind: "If";
  readonly condition: Expr;
}

// ---------------------------------------------------------------------------------------------
// Expressions

export type Expr =
  | Ident
  | IntLit
  | FloatLit
  | StringLit
  | BytesLit
  | Interpolation
  | BoolLit
  | NullLit
  | BottomLit
  | StructLit
  | ListLit
  | Paren
  | Unary
  | Binary
  | Selector
  | Index
  | Slice
  | Call
  | Postfix
  | Alias
  | BadExpr;

/** An identifier: `a`, `#Def`, `_hidden`, `_#hiddenDef`, `$x`, `_` (top), `int`, `len`... */
export interface Ident extends NodeBase {
  readonly kind: "Ident";
  readonly name: string;
}

/** Integer literal; `value` is exact (`1_000`, `0x1F`, `0o17`, `0b101`, `1.5Ki` are all ints). */
export interface IntLit extends NodeBase {
  readonly kind: "Int";
  readonly value: bigint;
  /** Source text as written. */
  readonly raw: string;
}

/** Float literal (`1.0`, `.5`, `1e3`, `1.5e-3`). */
export interface FloatLit extends NodeBase {
  readonly kind: "Float";
  /** Normalized decimal text: underscores removed, e.g. `1.5e-3`, `0.5`; exact for arbitrary precision. */
  readonly text: string;
  /** The nearest JavaScript number. */
  readonly value: number;
  readonly raw: string;
}

/** A string literal without interpolation (any quoting: `"…"`, `"""…"""`, `#"…"#`). */
export interface StringLit extends NodeBase {
  readonly kind: "String";
  /** The decoded value. */
  readonly value: string;
  readonly multiline: boolean;
}

/** A bytes literal without interpolation (`'…'`, `'''…'''`). */
export interface BytesLit extends NodeBase {
  readonly kind: "Bytes";
  readonly value: Uint8Array;
  readonly multiline: boolean;
}

/**
 * A string or bytes literal with `\(expr)` (or `\#(expr)` under `#` delimiters) interpolations.
 * Text parts are decoded; for bytes, each text char is one byte (a "binary string", code units 0–255).
 * `parts` alternates freely between text and expressions, in source order.
 */
export interface Interpolation extends NodeBase {
  readonly kind: "Interpolation";
  readonly bytes: boolean;
  readonly multiline: boolean;
  readonly parts: readonly (string | Expr)[];
}

export interface BoolLit extends NodeBase {
  readonly kind: "Bool";
  readonly value: boolean;
}

export interface NullLit extends NodeBase {
  readonly kind: "Null";
}

/** `_|_`. */
export interface BottomLit extends NodeBase {
  readonly kind: "Bottom";
}

/** `{ decls }`. `implicit` marks the struct made from `a: b: v` shorthand (no braces in source). */
export interface StructLit extends NodeBase {
  readonly kind: "Struct";
  readonly decls: readonly Decl[];
  readonly implicit: boolean;
}

/** `[a, b, for x in y {x}, ...T]`. */
export interface ListLit extends NodeBase {
  readonly kind: "List";
  readonly elems: readonly (Expr | Comprehension)[];
  /** A trailing `...` / `...T` (open list), if present. */
  readonly ellipsis?: Ellipsis;
}

/** `( expr )`. */
export interface Paren extends NodeBase {
  readonly kind: "Paren";
  readonly expr: Expr;
}

/**
 * Prefix operators: `!` `-` `+`, `*` (default marker), and the bound/comparison prefixes
 * `<` `<=` `>` `>=` `!=` `==` `=~` `!~` (e.g. `>=0`, `=~"^a"`; `==x` appears in the spec's examples).
 */
export type UnaryOp = "!" | "-" | "+" | "*" | "<" | "<=" | ">" | ">=" | "!=" | "==" | "=~" | "!~";

export interface Unary extends NodeBase {
  readonly kind: "Unary";
  readonly op: UnaryOp;
  readonly expr: Expr;
}

/**
 * `x...` (the `explicitopen` experiment): `x` without the closedness a reference to it would
 * otherwise bring at its top level. Binds tighter than any binary operator (`#A... & {b: 1}`).
 */
export interface Postfix extends NodeBase {
  readonly kind: "Postfix";
  /** `...` (explicitopen), or `?` (the try experiment: `a?` is absent if `a` is). */
  readonly op: "..." | "?";
  readonly expr: Expr;
}

/**
 * Binary operators, lowest to highest precedence:
 * `|` < `&` < `||` < `&&` < `== != < <= > >= =~ !~` < `+ -` < `* /`.
 * (`div mod quo rem` are builtin functions, i.e. `Call`s, not operators.)
 */
export type BinaryOp =
  | "|"
  | "&"
  | "||"
  | "&&"
  | "=="
  | "!="
  | "<"
  | "<="
  | ">"
  | ">="
  | "=~"
  | "!~"
  | "+"
  | "-"
  | "*"
  | "/";

export interface Binary extends NodeBase {
  readonly kind: "Binary";
  readonly op: BinaryOp;
  readonly left: Expr;
  readonly right: Expr;
  /** Position of the operator token. */
  readonly opPos: Pos;
}

/** `x.sel` where sel is an identifier or a quoted string (`x."a-b"`). */
export interface Selector extends NodeBase {
  readonly kind: "Selector";
  readonly expr: Expr;
  readonly sel: Ident | StringLit;
}

/** `x[index]`. */
export interface Index extends NodeBase {
  readonly kind: "Index";
  readonly expr: Expr;
  readonly index: Expr;
}

/** `x[lo:hi]`. Parsed for good messages; CUE v0.17 no longer supports slicing (evaluate as error). */
export interface Slice extends NodeBase {
  readonly kind: "Slice";
  readonly expr: Expr;
  readonly low?: Expr;
  readonly high?: Expr;
}

/** `fn(args)`: builtins (`len`, `close`, `and`, `or`, `div`…) and package functions (`strings.Join`). */
export interface Call extends NodeBase {
  readonly kind: "Call";
  readonly fn: Expr;
  readonly args: readonly Expr[];
}

/**
 * `X=expr` in an expression position where the grammar allows an AliasExpr (an embedding, a field
 * value, a list element). The alias names the value of `expr` within the enclosing scope.
 */
export interface Alias extends NodeBase {
  readonly kind: "Alias";
  readonly ident: Ident;
  readonly expr: Expr;
}

/** An expression that failed to parse (an error was reported). */
export interface BadExpr extends NodeBase {
  readonly kind: "BadExpr";
}

/** Every node kind. */
export type Node = File | ImportSpec | Comment | Decl | Label | Clause | Expr;

// ---------------------------------------------------------------------------------------------
// Helpers

/** What an identifier (or identifier label) denotes by its spelling. */
export type IdentKind = "regular" | "definition" | "hidden" | "hiddenDefinition" | "top";

/**
 * Classifies an identifier: `#A` definition, `_a` hidden, `_#A` hidden definition, `_` top; anything
 * else (including `$x`, `int`, `__x`) is regular. Note `_` as a label is invalid CUE; the parser
 * reports it.
 */
export function identKind(name: string): IdentKind {
  if (name === "_") return "top";
  if (name.startsWith("_#")) return "hiddenDefinition";
  if (name.startsWith("#")) return "definition";
  if (name.startsWith("_")) return "hidden";
  return "regular";
}

/** Whether a name is a definition's, hidden or not (`#A`, `_#A`). */
export function isDefinitionName(name: string): boolean {
  return name.startsWith("#") || name.startsWith("_#");
}
