/**
 * Leaf nodes: literals, identifiers and the stand-ins for input that did not parse. Each stores
 * its source and offset and is its own position (see `node-base.ts`).
 */

import type * as ast from "./ast.js";
import { isMultiline, Located, Span, setKind } from "./node-base.js";
import type { Source } from "./position.js";

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

export class IntNode extends Located implements ast.IntLit {
  declare readonly kind: "Int";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly value: bigint;
  constructor(src: Source, offset: number, end: number, value: bigint) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
    this.value = value;
  }
  get raw(): string {
    return this.src.text.slice(this.offset, this.end);
  }
}
setKind(IntNode, "Int");

/** BigInts for small literals, shared (bigints are immutable and compare by value). */
const smallInts: bigint[] = Array.from({ length: 1024 }, (_, i) => BigInt(i));

/**
 * A plain decimal integer literal (`0`, `8080`; no `_`, prefix or multiplier, at most 15 digits):
 * it keeps the number, so neither a bigint (past the shared small ones) nor its end is stored.
 * `value` makes the bigint when read; bigints compare by value, so a new one is as good.
 */
export class PlainIntNode extends Located implements ast.IntLit {
  declare readonly kind: "Int";
  declare readonly src: Source;
  declare readonly offset: number;
  readonly #n: number;
  constructor(src: Source, offset: number, n: number) {
    super();
    this.src = src;
    this.offset = offset;
    this.#n = n;
  }
  get value(): bigint {
    const n = this.#n;
    return n < 1024 ? (smallInts[n] as bigint) : BigInt(n);
  }
  get end(): number {
    return this.offset + String(this.#n).length;
  }
  get raw(): string {
    return String(this.#n);
  }
}
setKind(PlainIntNode, "Int");

export class FloatNode extends Located implements ast.FloatLit {
  declare readonly kind: "Float";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly text: string;
  declare readonly value: number;
  constructor(src: Source, offset: number, end: number, text: string, value: number) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
    this.text = text;
    this.value = value;
  }
  get raw(): string {
    return this.src.text.slice(this.offset, this.end);
  }
}
setKind(FloatNode, "Float");

export class StringNode extends Located implements ast.StringLit {
  declare readonly kind: "String";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly value: string;
  constructor(src: Source, offset: number, end: number, value: string) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
    this.value = value;
  }
  get multiline(): boolean {
    return isMultiline(this.src, this.offset);
  }
}
setKind(StringNode, "String");

/**
 * A `"…"` literal without escapes (most strings): its value is its source text between the
 * quotes, so its end is derived rather than stored.
 */
export class PlainStringNode extends Located implements ast.StringLit {
  declare readonly kind: "String";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly value: string;
  constructor(src: Source, offset: number, value: string) {
    super();
    this.src = src;
    this.offset = offset;
    this.value = value;
  }
  get end(): number {
    return this.offset + this.value.length + 2;
  }
  get multiline(): boolean {
    return false;
  }
}
setKind(PlainStringNode, "String");

export class BytesNode extends Located implements ast.BytesLit {
  declare readonly kind: "Bytes";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly value: Uint8Array;
  constructor(src: Source, offset: number, end: number, value: Uint8Array) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
    this.value = value;
  }
  get multiline(): boolean {
    return isMultiline(this.src, this.offset);
  }
}
setKind(BytesNode, "Bytes");

export class InterpolationNode extends Located implements ast.Interpolation {
  declare readonly kind: "Interpolation";
  declare readonly src: Source;
  declare readonly offset: number;
  declare readonly end: number;
  declare readonly bytes: boolean;
  declare readonly parts: readonly (string | ast.Expr)[];
  constructor(
    src: Source,
    offset: number,
    end: number,
    bytes: boolean,
    parts: readonly (string | ast.Expr)[],
  ) {
    super();
    this.src = src;
    this.offset = offset;
    this.end = end;
    this.bytes = bytes;
    this.parts = parts;
  }
  get multiline(): boolean {
    return isMultiline(this.src, this.offset);
  }
}
setKind(InterpolationNode, "Interpolation");
