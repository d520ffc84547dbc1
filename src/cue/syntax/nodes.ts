/**
 * The parser's implementation of the AST interfaces of `ast.ts`, laid out for large documents
 * (a 7 MB fleet file is millions of nodes, so every field counts):
 *  - `kind` lives on each class's prototype, not in every node;
 *  - a node that starts a construct stores its source and offset and is its own {@link Pos}
 *    (`node.pos === node`), so no position object is allocated per node;
 *  - a node that starts where a child starts (a field at its label, `a.b` at `a`, `a & b` at `a`)
 *    stores neither and forwards `pos` to that child; `end` is derived the same way where it can be
 *    (an identifier ends after its name, a field after its value or last attribute).
 *
 * These are classes rather than object literals because the shared getters and the prototype
 * `kind` are what make the nodes small. Only the parser constructs them; everyone else sees the
 * read-only interfaces of `ast.ts`.
 */

import type * as ast from "./ast.js";
import type { Pos, Source } from "./position.js";

/** A node that stores where it starts; it is its own position. */
abstract class Located implements Pos {
  abstract readonly src: Source;
  abstract readonly offset: number;
  get pos(): Pos {
    return this;
  }
  get file(): string {
    return this.src.name;
  }
  get line(): number {
    return this.src.line(this.offset);
  }
  get column(): number {
    return this.src.column(this.offset);
  }
  toString(): string {
    return `${this.file}:${this.line}:${this.column}`;
  }
}

/** The source a parser-made position belongs to. */
function sourceOf(p: Pos): Source | undefined {
  return p instanceof Located ? p.src : undefined;
}

function setKind(cls: { prototype: object }, kind: ast.Node["kind"]): void {
  Object.defineProperty(cls.prototype, "kind", { value: kind, enumerable: true });
}

const noAttributes: readonly ast.Attribute[] = Object.freeze([]);

/** True when the literal at `offset` uses triple quotes (after any `#` delimiters). */
function isMultiline(src: Source, offset: number): boolean {
  const t = src.text;
  let i = offset;
  while (t.charCodeAt(i) === 35) i++;
  const q = t.charCodeAt(i);
  return t.charCodeAt(i + 1) === q && t.charCodeAt(i + 2) === q;
}

// ---------------------------------------------------------------------------------------------
// Nodes with a stored position

/** A node whose extent is just its start and end (bad input, `null`, `_|_`). */
abstract class Span extends Located {
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  constructor(src: Source, offset: number, end: number) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
  }
}

export class BadExprNode extends Span implements ast.BadExpr {
  declare readonly kind: "BadExpr";
}
setKind(BadExprNode, "BadExpr");

export class BadDeclNode extends Span implements ast.BadDecl {
  declare readonly kind: "BadDecl";
}
setKind(BadDeclNode, "BadDecl");

export class NullNode extends Span implements ast.NullLit {
  declare readonly kind: "Null";
}
setKind(NullNode, "Null");

export class BottomNode extends Span implements ast.BottomLit {
  declare readonly kind: "Bottom";
}
setKind(BottomNode, "Bottom");

export class IdentNode extends Located implements ast.Ident {
  declare readonly kind: "Ident";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly name: string;
  /** `name` is the identifier's source text (so it ends `name.length` after `offset`). */
  constructor(src: Source, offset: number, name: string) {
    super();
    this.src = src;
    this.offset = offset;
    this.name = name;
  }
  get end(): number {
    return this.offset + this.name.length;
  }
}
setKind(IdentNode, "Ident");

export class BoolNode extends Located implements ast.BoolLit {
  declare readonly kind: "Bool";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly value: boolean;
  constructor(src: Source, offset: number, value: boolean) {
    super();
    this.src = src;
    this.offset = offset;
    this.value = value;
  }
  get end(): number {
    return this.offset + (this.value ? 4 : 5);
  }
}
setKind(BoolNode, "Bool");

export class IntNode extends Span implements ast.IntLit {
  declare readonly kind: "Int";
  declare readonly value: bigint;
  constructor(src: Source, offset: number, end: number, value: bigint) {
    super(src, offset, end);
    this.value = value;
  }
  get raw(): string {
    return this.src.text.slice(this.offset, this.end);
  }
}
setKind(IntNode, "Int");

export class FloatNode extends Span implements ast.FloatLit {
  declare readonly kind: "Float";
  declare readonly text: string;
  declare readonly value: number;
  constructor(src: Source, offset: number, end: number, text: string, value: number) {
    super(src, offset, end);
    this.text = text;
    this.value = value;
  }
  get raw(): string {
    return this.src.text.slice(this.offset, this.end);
  }
}
setKind(FloatNode, "Float");

export class StringNode extends Span implements ast.StringLit {
  declare readonly kind: "String";
  declare readonly value: string;
  constructor(src: Source, offset: number, end: number, value: string) {
    super(src, offset, end);
    this.value = value;
  }
  get multiline(): boolean {
    return isMultiline(this.src, this.offset);
  }
}
setKind(StringNode, "String");

export class BytesNode extends Span implements ast.BytesLit {
  declare readonly kind: "Bytes";
  declare readonly value: Uint8Array;
  constructor(src: Source, offset: number, end: number, value: Uint8Array) {
    super(src, offset, end);
    this.value = value;
  }
  get multiline(): boolean {
    return isMultiline(this.src, this.offset);
  }
}
setKind(BytesNode, "Bytes");

export class InterpolationNode extends Span implements ast.Interpolation {
  declare readonly kind: "Interpolation";
  declare readonly bytes: boolean;
  declare readonly parts: readonly (string | ast.Expr)[];
  constructor(
    src: Source,
    offset: number,
    end: number,
    bytes: boolean,
    parts: readonly (string | ast.Expr)[],
  ) {
    super(src, offset, end);
    this.bytes = bytes;
    this.parts = parts;
  }
  get multiline(): boolean {
    return isMultiline(this.src, this.offset);
  }
}
setKind(InterpolationNode, "Interpolation");

export class StructNode extends Span implements ast.StructLit {
  declare readonly kind: "Struct";
  declare readonly decls: readonly ast.Decl[];
  constructor(src: Source, offset: number, end: number, decls: readonly ast.Decl[]) {
    super(src, offset, end);
    this.decls = decls;
  }
  get implicit(): boolean {
    return false;
  }
}
setKind(StructNode, "Struct");

/** The empty stand-in body of a comprehension whose `{` is missing (marked implicit: not in the source). */
export class MissingBodyNode extends StructNode {
  override get implicit(): boolean {
    return true;
  }
}

export class ListNode extends Span implements ast.ListLit {
  declare readonly kind: "List";
  declare readonly elems: readonly (ast.Expr | ast.Comprehension)[];
  declare readonly ellipsis: ast.Ellipsis | undefined;
  constructor(
    src: Source,
    offset: number,
    end: number,
    elems: readonly (ast.Expr | ast.Comprehension)[],
    ellipsis: ast.Ellipsis | undefined,
  ) {
    super(src, offset, end);
    this.elems = elems;
    this.ellipsis = ellipsis;
  }
}
setKind(ListNode, "List");

export class ParenNode extends Span implements ast.Paren {
  declare readonly kind: "Paren";
  declare readonly expr: ast.Expr;
  constructor(src: Source, offset: number, end: number, expr: ast.Expr) {
    super(src, offset, end);
    this.expr = expr;
  }
}
setKind(ParenNode, "Paren");

export class UnaryNode extends Located implements ast.Unary {
  declare readonly kind: "Unary";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly op: ast.UnaryOp;
  declare readonly expr: ast.Expr;
  constructor(src: Source, offset: number, op: ast.UnaryOp, expr: ast.Expr) {
    super();
    this.src = src;
    this.offset = offset;
    this.op = op;
    this.expr = expr;
  }
  get end(): number {
    return this.expr.end;
  }
}
setKind(UnaryNode, "Unary");

export class EllipsisNode extends Span implements ast.Ellipsis {
  declare readonly kind: "Ellipsis";
  declare readonly type: ast.Expr | undefined;
  constructor(src: Source, offset: number, end: number, type: ast.Expr | undefined) {
    super(src, offset, end);
    this.type = type;
  }
}
setKind(EllipsisNode, "Ellipsis");

export class AttributeNode extends Span implements ast.Attribute {
  declare readonly kind: "Attribute";
  declare readonly name: string;
  declare readonly body: string;
  declare readonly bodyOffset: number;
  constructor(src: Source, offset: number, end: number, name: string, body: string, bodyOffset: number) {
    super(src, offset, end);
    this.name = name;
    this.body = body;
    this.bodyOffset = bodyOffset;
  }
}
setKind(AttributeNode, "Attribute");

export class LetNode extends Located implements ast.LetClause {
  declare readonly kind: "Let";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly ident: ast.Ident;
  declare readonly expr: ast.Expr;
  constructor(src: Source, offset: number, ident: ast.Ident, expr: ast.Expr) {
    super();
    this.src = src;
    this.offset = offset;
    this.ident = ident;
    this.expr = expr;
  }
  get end(): number {
    return this.expr.end;
  }
}
setKind(LetNode, "Let");

export class ForNode extends Located implements ast.ForClause {
  declare readonly kind: "For";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly key: ast.Ident | undefined;
  declare readonly value: ast.Ident;
  declare readonly source: ast.Expr;
  constructor(src: Source, offset: number, key: ast.Ident | undefined, value: ast.Ident, source: ast.Expr) {
    super();
    this.src = src;
    this.offset = offset;
    this.key = key;
    this.value = value;
    this.source = source;
  }
  get end(): number {
    return this.source.end;
  }
}
setKind(ForNode, "For");

export class IfNode extends Located implements ast.IfClause {
  declare readonly kind: "If";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly condition: ast.Expr;
  constructor(src: Source, offset: number, condition: ast.Expr) {
    super();
    this.src = src;
    this.offset = offset;
    this.condition = condition;
  }
  get end(): number {
    return this.condition.end;
  }
}
setKind(IfNode, "If");

export class ComprehensionNode extends Span implements ast.Comprehension {
  declare readonly kind: "Comprehension";
  declare readonly clauses: readonly ast.Clause[];
  declare readonly value: ast.StructLit;
  declare readonly fallback: ast.StructLit | undefined;
  constructor(
    src: Source,
    offset: number,
    end: number,
    clauses: readonly ast.Clause[],
    value: ast.StructLit,
    fallback?: ast.StructLit,
  ) {
    super(src, offset, end);
    this.clauses = clauses;
    this.value = value;
    this.fallback = fallback;
  }
}
setKind(ComprehensionNode, "Comprehension");

export class TryNode extends Located implements ast.TryClause {
  declare readonly kind: "Try";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly ident: ast.Ident | undefined;
  declare readonly expr: ast.Expr | undefined;
  constructor(src: Source, offset: number, ident: ast.Ident | undefined, expr: ast.Expr | undefined) {
    super();
    this.src = src;
    this.offset = offset;
    this.ident = ident;
    this.expr = expr;
  }
  get end(): number {
    return this.expr?.end ?? this.offset + 3;
  }
}
setKind(TryNode, "Try");

export class DynamicLabelNode extends Span implements ast.DynamicLabel {
  declare readonly kind: "DynamicLabel";
  declare readonly alias: ast.Ident | undefined;
  declare readonly expr: ast.Expr;
  constructor(src: Source, offset: number, end: number, alias: ast.Ident | undefined, expr: ast.Expr) {
    super(src, offset, end);
    this.alias = alias;
    this.expr = expr;
  }
}
setKind(DynamicLabelNode, "DynamicLabel");

export class PatternLabelNode extends Span implements ast.PatternLabel {
  declare readonly kind: "PatternLabel";
  declare readonly alias: ast.Ident | undefined;
  declare readonly expr: ast.Expr;
  constructor(src: Source, offset: number, end: number, alias: ast.Ident | undefined, expr: ast.Expr) {
    super(src, offset, end);
    this.alias = alias;
    this.expr = expr;
  }
}
setKind(PatternLabelNode, "PatternLabel");

export class ImportNode extends Span implements ast.ImportSpec {
  declare readonly kind: "Import";
  declare readonly name: ast.Ident | undefined;
  declare readonly path: string;
  constructor(src: Source, offset: number, end: number, name: ast.Ident | undefined, path: string) {
    super(src, offset, end);
    this.name = name;
    this.path = path;
  }
}
setKind(ImportNode, "Import");

export class CommentNode extends Span implements ast.Comment {
  declare readonly kind: "Comment";
  declare readonly text: string;
  constructor(src: Source, offset: number, end: number, text: string) {
    super(src, offset, end);
    this.text = text;
  }
}
setKind(CommentNode, "Comment");

export class FileNode extends Span implements ast.File {
  declare readonly kind: "File";
  declare readonly packageName: ast.Ident | undefined;
  declare readonly fileAttributes: readonly ast.Attribute[];
  declare readonly imports: readonly ast.ImportSpec[];
  declare readonly decls: readonly ast.Decl[];
  declare readonly comments: readonly ast.Comment[];
  constructor(
    src: Source,
    offset: number,
    end: number,
    packageName: ast.Ident | undefined,
    fileAttributes: readonly ast.Attribute[],
    imports: readonly ast.ImportSpec[],
    decls: readonly ast.Decl[],
    comments: readonly ast.Comment[],
  ) {
    super(src, offset, end);
    this.packageName = packageName;
    this.fileAttributes = fileAttributes;
    this.imports = imports;
    this.decls = decls;
    this.comments = comments;
  }
  get filename(): string {
    return this.src.name;
  }
}
setKind(FileNode, "File");

// ---------------------------------------------------------------------------------------------
// Nodes positioned by a child

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
  declare readonly keyAlias: ast.Ident | undefined;
  constructor(
    label: ast.Label,
    alias: ast.Ident | undefined,
    constraint: ast.FieldConstraint,
    value: ast.Expr,
    attributes: readonly ast.Attribute[],
    keyAlias?: ast.Ident,
  ) {
    this.label = label;
    this.alias = alias;
    this.constraint = constraint;
    this.value = value;
    this.attributes = attributes;
    this.keyAlias = keyAlias;
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

/** A field node of the smallest shape that holds these parts. */
export function newField(
  label: ast.Label,
  alias: ast.Ident | undefined,
  constraint: ast.FieldConstraint,
  value: ast.Expr,
  attributes: readonly ast.Attribute[] = noAttributes,
  keyAlias?: ast.Ident,
): ast.Field {
  return alias === undefined && keyAlias === undefined && constraint === "regular" && attributes.length === 0
    ? new PlainFieldNode(label, value)
    : new FieldNode(label, alias, constraint, value, attributes, keyAlias);
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

/** `x?` (the try experiment). */
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
