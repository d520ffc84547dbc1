/**
 * Source positions. Every AST node is its own {@link Pos}: it stores an offset and a reference to
 * its {@link Source} (or derives both from a child), and answers `file`, `line` and `column` on
 * demand from the source's line table. Large documents therefore pay no position objects at parse
 * time while every position stays exact.
 *
 * Lines and columns are 1-based; columns count UTF-16 code units (as JavaScript strings do), so for
 * ASCII text they equal the byte columns that `cue` prints.
 */

/** A position in a source file. */
export interface Pos {
  /** File name as given to the parser. */
  readonly file: string;
  /** 0-based UTF-16 offset into the file's text. */
  readonly offset: number;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column in UTF-16 code units. */
  readonly column: number;
}

/** A source text with its line table; hands out positions for offsets. */
export interface Source {
  readonly name: string;
  readonly text: string;
  /** The position of a 0-based offset (clamped to the text). */
  pos(offset: number): Pos;
  /** 1-based line and column of an offset. */
  lineColumn(offset: number): { line: number; column: number };
  /** 1-based line of an offset. */
  line(offset: number): number;
  /** 1-based column (UTF-16 code units) of an offset. */
  column(offset: number): number;
}

/** Builds a source; its line table is computed on the first line/column question. */
export function createSource(name: string, text: string): Source {
  return new SourceText(name, text);
}

/**
 * The implementation of {@link Source}: a class so that every node's `line`/`column` getter calls
 * the same methods whichever file the node is from.
 */
class SourceText implements Source {
  readonly name: string;
  readonly text: string;
  #lineStarts: Int32Array | undefined;

  constructor(name: string, text: string) {
    this.name = name;
    this.text = text;
  }

  pos(offset: number): Pos {
    return new SourcePos(this, offset);
  }

  lineColumn(offset: number): { line: number; column: number } {
    const off = this.#clamp(offset);
    const l = this.#lineIndex(off);
    return { line: l + 1, column: off - (this.#starts()[l] ?? 0) + 1 };
  }

  line(offset: number): number {
    return this.#lineIndex(this.#clamp(offset)) + 1;
  }

  column(offset: number): number {
    const off = this.#clamp(offset);
    return off - (this.#starts()[this.#lineIndex(off)] ?? 0) + 1;
  }

  #clamp(offset: number): number {
    return Math.max(0, Math.min(offset, this.text.length));
  }

  #starts(): Int32Array {
    if (this.#lineStarts === undefined) {
      const text = this.text;
      let n = 1;
      for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
      const ls = new Int32Array(n);
      let k = 1;
      for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) ls[k++] = i + 1;
      this.#lineStarts = ls;
    }
    return this.#lineStarts;
  }

  /** 0-based index of the line holding `off` (binary search over the line starts). */
  #lineIndex(off: number): number {
    const ls = this.#starts();
    let lo = 0;
    let hi = ls.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((ls[mid] ?? 0) <= off) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** A position that is not a node (errors, operator positions). */
class SourcePos implements Pos {
  readonly #source: Source;
  readonly offset: number;
  constructor(source: Source, offset: number) {
    this.#source = source;
    this.offset = offset;
  }
  get file(): string {
    return this.#source.name;
  }
  get line(): number {
    return this.#source.line(this.offset);
  }
  get column(): number {
    return this.#source.column(this.offset);
  }
  toJSON(): { file: string; line: number; column: number } {
    const lc = this.#source.lineColumn(this.offset);
    return { file: this.file, line: lc.line, column: lc.column };
  }
  toString(): string {
    return formatPos(this);
  }
}

/** A position with no source, used for synthesized nodes. */
export const noPos: Pos = Object.freeze({ file: "", offset: -1, line: 0, column: 0 });

/** `file:line:column`, the way `cue` prints positions (without the leading `./`). */
export function formatPos(p: Pos): string {
  return `${p.file}:${p.line}:${p.column}`;
}
