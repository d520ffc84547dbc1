/**
 * Nodes that start where a child starts (a field at its alias or label, `a.b`, `a & b`, `f(x)`,
 * `x...` and `x?` at their operand, an embedding at its expression, `a: b: c` shorthand at the inner
 * field): they store no position and forward `pos` to that child, and derive `end` where they can.
 * Fields are all here, including the one that stores its own position: `name: value` with an
 * identifier label, which keeps the label inline (see {@link IdentFieldNode}).
 */

import type * as ast from "./ast.js";
import { IdentNode } from "./literal-nodes.js";
import { Located, noAttributes, setKind, sourceOf } from "./node-base.js";
import type { Pos, Source } from "./position.js";

/** `a: b: v` shorthand: the struct holding `b: v` starts and ends where that field does. */
export class ImplicitStructNode implements ast.StructLit {
  declare readonly kind: "Struct";
  declare readonly decls: readonly [ast.Field];
  constructor(field: ast.Field) {
    this.decls = [field];
  }
  get pos(): Pos {
    return this.decls[0].pos;
  }
  get end(): number {
    return this.decls[0].end;
  }
  get implicit(): boolean {
    return true;
  }
}
setKind(ImplicitStructNode, "Struct");

/** A field with an alias, a `?`/`!` marker or attributes. */
export class FieldNode implements ast.Field {
  declare readonly kind: "Field";
  declare readonly label: ast.Label;
  declare readonly alias: ast.Ident | undefined;
  declare readonly constraint: ast.FieldConstraint;
  declare readonly value: ast.Expr;
  declare readonly attributes: readonly ast.Attribute[];
  constructor(
    label: ast.Label,
    alias: ast.Ident | undefined,
    constraint: ast.FieldConstraint,
    value: ast.Expr,
    attributes: readonly ast.Attribute[],
  ) {
    this.label = label;
    this.alias = alias;
    this.constraint = constraint;
    this.value = value;
    this.attributes = attributes;
  }
  /** Only {@link KeyAliasFieldNode} has one, so other fields spend no slot on it. */
  get keyAlias(): ast.Ident | undefined {
    return undefined;
  }
  /** The alias if there is one (`X=a: v` starts at `X`), else the label. */
  get pos(): Pos {
    return (this.alias ?? this.label).pos;
  }
  get end(): number {
    const a = this.attributes;
    return a.length === 0 ? this.value.end : (a[a.length - 1] as ast.Attribute).end;
  }
}
setKind(FieldNode, "Field");

/** A field with a label alias `K` from `label~(K,V): v` (aliasv2) on a fixed label. */
export class KeyAliasFieldNode extends FieldNode {
  declare readonly key: ast.Ident;
  constructor(
    label: ast.Label,
    alias: ast.Ident | undefined,
    constraint: ast.FieldConstraint,
    value: ast.Expr,
    attributes: readonly ast.Attribute[],
    key: ast.Ident,
  ) {
    super(label, alias, constraint, value, attributes);
    this.key = key;
  }
  override get keyAlias(): ast.Ident {
    return this.key;
  }
}

/** The common field `label: value` (regular, no alias, no attributes): two references. */
export class PlainFieldNode implements ast.Field {
  declare readonly kind: "Field";
  declare readonly label: ast.Label;
  declare readonly value: ast.Expr;
  constructor(label: ast.Label, value: ast.Expr) {
    this.label = label;
    this.value = value;
  }
  get alias(): undefined {
    return undefined;
  }
  get constraint(): "regular" {
    return "regular";
  }
  get attributes(): readonly ast.Attribute[] {
    return noAttributes;
  }
  get keyAlias(): undefined {
    return undefined;
  }
  get pos(): Pos {
    return this.label.pos;
  }
  get end(): number {
    return this.value.end;
  }
}
setKind(PlainFieldNode, "Field");

/**
 * The most common field of all, `name: value` (an identifier label; regular, no alias, no
 * attributes). It keeps its label inline — the name and where it starts, which is where the field
 * starts, so the field is its own position — and makes the `Ident` node when `label` is read: a
 * large document has one such field per value, and a label object per field was a quarter of the
 * tree. Each read of `label` returns a new (equal) node; {@link identLabel} reads the name without
 * making one.
 */
export class IdentFieldNode extends Located implements ast.Field {
  declare readonly kind: "Field";
  declare readonly offset: number;
  /** The label's name (interned). */
  declare readonly labelName: string;
  declare readonly value: ast.Expr;
  constructor(offset: number, labelName: string, value: ast.Expr) {
    super();
    this.offset = offset;
    this.labelName = labelName;
    this.value = value;
  }
  /** The value's source (a field and its value are in the same file): one field less per field. */
  get src(): Source {
    return sourceOf(this.value.pos) as Source;
  }
  get label(): ast.Ident {
    return new FieldLabelNode(this);
  }
  get alias(): undefined {
    return undefined;
  }
  get constraint(): "regular" {
    return "regular";
  }
  get attributes(): readonly ast.Attribute[] {
    return noAttributes;
  }
  get keyAlias(): undefined {
    return undefined;
  }
  get end(): number {
    return this.value.end;
  }
}
setKind(IdentFieldNode, "Field");

/**
 * The `Ident` an {@link IdentFieldNode} makes when its `label` is read: it answers from the field,
 * and its position is the field itself (which starts at the label), so a reader that keeps
 * `label.pos` keeps nothing new alive.
 */
class FieldLabelNode implements ast.Ident {
  declare readonly kind: "Ident";
  readonly #field: IdentFieldNode;
  constructor(field: IdentFieldNode) {
    this.#field = field;
  }
  get name(): string {
    return this.#field.labelName;
  }
  get pos(): Pos {
    return this.#field;
  }
  get end(): number {
    return this.#field.offset + this.#field.labelName.length;
  }
  toString(): string {
    return this.#field.toString();
  }
}
setKind(FieldLabelNode, "Ident");

/**
 * The name of a field's label when it is an identifier (`name: v`, `#D: v`, `_h?: v`...), else
 * undefined — what `d.label.kind === "Ident" ? d.label.name : undefined` answers, without making
 * a label node for the common `name: value` field.
 */
export function identLabel(d: ast.Field): string | undefined {
  if (d instanceof IdentFieldNode) return d.labelName;
  const l = d.label;
  return l.kind === "Ident" ? l.name : undefined;
}

/** A field node of the smallest shape that holds these parts. */
export function newField(
  label: ast.Label,
  alias: ast.Ident | undefined,
  constraint: ast.FieldConstraint,
  value: ast.Expr,
  attributes: readonly ast.Attribute[] = noAttributes,
  keyAlias?: ast.Ident,
): ast.Field {
  if (keyAlias !== undefined)
    return new KeyAliasFieldNode(label, alias, constraint, value, attributes, keyAlias);
  if (alias !== undefined || constraint !== "regular" || attributes.length !== 0)
    return new FieldNode(label, alias, constraint, value, attributes);
  return label instanceof IdentNode
    ? new IdentFieldNode(label.offset, label.name, value)
    : new PlainFieldNode(label, value);
}

export class EmbedNode implements ast.Embed {
  declare readonly kind: "Embed";
  declare readonly expr: ast.Expr;
  constructor(expr: ast.Expr) {
    this.expr = expr;
  }
  get pos(): Pos {
    return this.expr.pos;
  }
  get end(): number {
    return this.expr.end;
  }
}
setKind(EmbedNode, "Embed");

export class AliasNode implements ast.Alias {
  declare readonly kind: "Alias";
  declare readonly ident: ast.Ident;
  declare readonly expr: ast.Expr;
  constructor(ident: ast.Ident, expr: ast.Expr) {
    this.ident = ident;
    this.expr = expr;
  }
  get pos(): Pos {
    return this.ident.pos;
  }
  get end(): number {
    return this.expr.end;
  }
}
setKind(AliasNode, "Alias");

export class BinaryNode implements ast.Binary {
  declare readonly kind: "Binary";
  declare readonly op: ast.BinaryOp;
  declare readonly left: ast.Expr;
  declare readonly right: ast.Expr;
  declare readonly opOffset: number;
  constructor(op: ast.BinaryOp, left: ast.Expr, right: ast.Expr, opOffset: number) {
    this.op = op;
    this.left = left;
    this.right = right;
    this.opOffset = opOffset;
  }
  get pos(): Pos {
    return this.left.pos;
  }
  get end(): number {
    return this.right.end;
  }
  get opPos(): Pos {
    const p = this.left.pos;
    const src = sourceOf(p);
    return src === undefined ? p : src.pos(this.opOffset);
  }
}
setKind(BinaryNode, "Binary");

/** `x...` (explicitopen): ends at its `...`. */
export class PostfixNode implements ast.Postfix {
  declare readonly kind: "Postfix";
  declare readonly op: "...";
  declare readonly expr: ast.Expr;
  declare readonly end: number;
  constructor(expr: ast.Expr, end: number) {
    this.expr = expr;
    this.end = end;
  }
  get pos(): Pos {
    return this.expr.pos;
  }
}
setKind(PostfixNode, "Postfix");
Object.defineProperty(PostfixNode.prototype, "op", { value: "...", enumerable: true });

/** `x?` (the try experiment): absent when `x` is; ends at its `?`. */
export class OptionalRefNode implements ast.Postfix {
  declare readonly kind: "Postfix";
  declare readonly op: "?";
  declare readonly expr: ast.Expr;
  declare readonly end: number;
  constructor(expr: ast.Expr, end: number) {
    this.expr = expr;
    this.end = end;
  }
  get pos(): Pos {
    return this.expr.pos;
  }
}
setKind(OptionalRefNode, "Postfix");
Object.defineProperty(OptionalRefNode.prototype, "op", { value: "?", enumerable: true });

export class SelectorNode implements ast.Selector {
  declare readonly kind: "Selector";
  declare readonly expr: ast.Expr;
  declare readonly sel: ast.Ident | ast.StringLit;
  constructor(expr: ast.Expr, sel: ast.Ident | ast.StringLit) {
    this.expr = expr;
    this.sel = sel;
  }
  get pos(): Pos {
    return this.expr.pos;
  }
  get end(): number {
    return this.sel.end;
  }
}
setKind(SelectorNode, "Selector");

export class IndexNode implements ast.Index {
  declare readonly kind: "Index";
  declare readonly expr: ast.Expr;
  declare readonly index: ast.Expr;
  declare readonly end: number;
  constructor(expr: ast.Expr, index: ast.Expr, end: number) {
    this.expr = expr;
    this.index = index;
    this.end = end;
  }
  get pos(): Pos {
    return this.expr.pos;
  }
}
setKind(IndexNode, "Index");

export class SliceNode implements ast.Slice {
  declare readonly kind: "Slice";
  declare readonly expr: ast.Expr;
  declare readonly low: ast.Expr | undefined;
  declare readonly high: ast.Expr | undefined;
  declare readonly end: number;
  constructor(expr: ast.Expr, low: ast.Expr | undefined, high: ast.Expr | undefined, end: number) {
    this.expr = expr;
    this.low = low;
    this.high = high;
    this.end = end;
  }
  get pos(): Pos {
    return this.expr.pos;
  }
}
setKind(SliceNode, "Slice");

export class CallNode implements ast.Call {
  declare readonly kind: "Call";
  declare readonly fn: ast.Expr;
  declare readonly args: readonly ast.Expr[];
  declare readonly end: number;
  constructor(fn: ast.Expr, args: readonly ast.Expr[], end: number) {
    this.fn = fn;
    this.args = args;
    this.end = end;
  }
  get pos(): Pos {
    return this.fn.pos;
  }
}
setKind(CallNode, "Call");
