/**
 * Source positions. A node stores a compact {@link Pos} (a source reference and an offset); line and
 * column are computed on demand from the source's line table, which keeps large documents cheap to
 * parse while every node still answers `file`, `offset`, `line` and `column`.
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
}

/** Builds the line table of a source text. */
export function createSource(name: string, text: string): Source {
  let lineStarts: number[] | undefined;
  const starts = (): number[] => {
    if (lineStarts === undefined) {
      lineStarts = [0];
      for (let i = 0; i < text.length; i++) {
        if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
      }
    }
    return lineStarts;
  };
  const lineColumn = (offset: number): { line: number; column: number } => {
    const ls = starts();
    const off = Math.max(0, Math.min(offset, text.length));
    let lo = 0;
    let hi = ls.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((ls[mid] ?? 0) <= off) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: off - (ls[lo] ?? 0) + 1 };
  };
  const source: Source = {
    name,
    text,
    pos: (offset) => new SourcePos(source, offset),
    lineColumn,
  };
  return source;
}

/** Lazily resolved position: two fields per node instead of four. */
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
    return this.#source.lineColumn(this.offset).line;
  }
  get column(): number {
    return this.#source.lineColumn(this.offset).column;
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
