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
 * read-only interfaces of `ast.ts`. This file holds what they share; the nodes are in
 * `literal-nodes.ts` (leaves), `nodes.ts` (constructs with their own start) and `derived-nodes.ts`
 * (nodes positioned by a child).
 */

import type * as ast from "./ast.js";
import type { Pos, Source } from "./position.js";

/** A node that stores where it starts; it is its own position. */
export abstract class Located implements Pos {
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
export function sourceOf(p: Pos): Source | undefined {
  return p instanceof Located ? p.src : undefined;
}

export function setKind(cls: { prototype: object }, kind: ast.Node["kind"]): void {
  Object.defineProperty(cls.prototype, "kind", { value: kind, enumerable: true });
}

export const noAttributes: readonly ast.Attribute[] = Object.freeze([]);

/** True when the literal at `offset` uses triple quotes (after any `#` delimiters). */
export function isMultiline(src: Source, offset: number): boolean {
  const t = src.text;
  let i = offset;
  while (t.charCodeAt(i) === 35) i++;
  const q = t.charCodeAt(i);
  return t.charCodeAt(i + 1) === q && t.charCodeAt(i + 2) === q;
}

/**
 * A node that stores its source, start and end, through this shared constructor: for rare nodes
 * (`null`, `_|_`, bad input). Frequent ones assign their own fields, so that each constructor's
 * stores see one shape (V8 deoptimizes a shared constructor when a new shape comes by).
 */
export abstract class Span extends Located {
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
