/**
 * Nodes that start a construct of their own (structs, lists, parentheses, prefix operators,
 * clauses, labels in brackets, imports, the file): each stores its source and offset and is its
 * own position (see `node-base.ts`).
 */

import type * as ast from "./ast.js";
import { Located, setKind } from "./node-base.js";
import type { Source } from "./position.js";

export class StructNode extends Located implements ast.StructLit {
  declare readonly kind: "Struct";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly decls: readonly ast.Decl[];
  constructor(src: Source, offset: number, end: number, decls: readonly ast.Decl[]) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
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

export class ListNode extends Located implements ast.ListLit {
  declare readonly kind: "List";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly elems: readonly (ast.Expr | ast.Comprehension)[];
  declare readonly ellipsis: ast.Ellipsis | undefined;
  constructor(
    src: Source,
    offset: number,
    end: number,
    elems: readonly (ast.Expr | ast.Comprehension)[],
    ellipsis: ast.Ellipsis | undefined,
  ) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
    this.elems = elems;
    this.ellipsis = ellipsis;
  }
}
setKind(ListNode, "List");

export class ParenNode extends Located implements ast.Paren {
  declare readonly kind: "Paren";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly expr: ast.Expr;
  constructor(src: Source, offset: number, end: number, expr: ast.Expr) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
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

export class EllipsisNode extends Located implements ast.Ellipsis {
  declare readonly kind: "Ellipsis";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly type: ast.Expr | undefined;
  constructor(src: Source, offset: number, end: number, type: ast.Expr | undefined) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
    this.type = type;
  }
}
setKind(EllipsisNode, "Ellipsis");

export class AttributeNode extends Located implements ast.Attribute {
  declare readonly kind: "Attribute";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly name: string;
  declare readonly body: string;
  declare readonly bodyOffset: number;
  constructor(src: Source, offset: number, end: number, name: string, body: string, bodyOffset: number) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
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

export class ComprehensionNode extends Located implements ast.Comprehension {
  declare readonly kind: "Comprehension";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly clauses: readonly ast.Clause[];
  declare readonly value: ast.StructLit;
  /** Comprehensions are few, so every one has this slot (undefined unless `else { … }`). */
  declare readonly fallback: ast.StructLit | undefined;
  constructor(
    src: Source,
    offset: number,
    end: number,
    clauses: readonly ast.Clause[],
    value: ast.StructLit,
    fallback?: ast.StructLit,
  ) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
    this.clauses = clauses;
    this.value = value;
    this.fallback = fallback;
  }
}
setKind(ComprehensionNode, "Comprehension");

/** `try x = expr`, or `try` before the body in `try { … }` (the try experiment). */
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
    // The struct form ends after the keyword `try`.
    return this.expr?.end ?? this.offset + 3;
  }
}
setKind(TryNode, "Try");

export class DynamicLabelNode extends Located implements ast.DynamicLabel {
  declare readonly kind: "DynamicLabel";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly alias: ast.Ident | undefined;
  declare readonly expr: ast.Expr;
  constructor(src: Source, offset: number, end: number, alias: ast.Ident | undefined, expr: ast.Expr) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
    this.alias = alias;
    this.expr = expr;
  }
}
setKind(DynamicLabelNode, "DynamicLabel");

export class PatternLabelNode extends Located implements ast.PatternLabel {
  declare readonly kind: "PatternLabel";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly alias: ast.Ident | undefined;
  declare readonly expr: ast.Expr;
  constructor(src: Source, offset: number, end: number, alias: ast.Ident | undefined, expr: ast.Expr) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
    this.alias = alias;
    this.expr = expr;
  }
}
setKind(PatternLabelNode, "PatternLabel");

export class ImportNode extends Located implements ast.ImportSpec {
  declare readonly kind: "Import";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly name: ast.Ident | undefined;
  declare readonly path: string;
  constructor(src: Source, offset: number, end: number, name: ast.Ident | undefined, path: string) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
    this.name = name;
    this.path = path;
  }
}
setKind(ImportNode, "Import");

export class CommentNode extends Located implements ast.Comment {
  declare readonly kind: "Comment";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly text: string;
  constructor(src: Source, offset: number, end: number, text: string) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
    this.text = text;
  }
}
setKind(CommentNode, "Comment");

export class FileNode extends Located implements ast.File {
  declare readonly kind: "File";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
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
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
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
