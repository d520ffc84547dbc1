import type { SourcePosition } from "./diagnostic.js";

/** Where the fields of exported data came from; the CUE engine's PositionIndex fits this shape. */
export interface PositionLookup {
  of(container: object, key: string | number): readonly SourcePosition[];
}

export type DocPath = readonly (string | number)[];

/** Finds the position in the user's file that best stands for a document path. */
export interface Locator {
  /**
   * The position of the deepest field along `path` that the user's file wrote (a default filled in
   * by the schema has no place in the user's file, so its nearest written ancestor stands for it);
   * line 1, column 1 when nothing along the path was written by the user. When the whole path was
   * written and holds a scalar, the position is the value's rather than the label's.
   */
  at(path: DocPath): SourcePosition;
  /** The user's position of exactly this field's label, if the user's file wrote it. */
  exact(path: DocPath): SourcePosition | undefined;
}

/**
 * A locator over exported data and its position index. With the document's `text`, positions of
 * scalar fields move from the label (what the engine records) to the value after the colon.
 */
export function createLocator(
  data: unknown,
  positions: PositionLookup | undefined,
  file: string,
  text?: string,
): Locator {
  const userPos = (container: object, key: string | number): SourcePosition | undefined => {
    if (positions === undefined) return undefined;
    for (const p of positions.of(container, key)) if (p.file === file) return p;
    return undefined;
  };
  const walk = (path: DocPath): { best: SourcePosition | undefined; depth: number; value: unknown } => {
    // The containers along the path first (plain reads), then positions from the deepest field up:
    // the user usually wrote the field itself, so one position lookup answers.
    const containers: object[] = [];
    const keys: (string | number)[] = [];
    let container: unknown = data;
    for (let i = 0; i < path.length; i++) {
      if (container === null || typeof container !== "object") break;
      let key = path[i] as string | number;
      let next: unknown;
      if (Array.isArray(container)) {
        key = Number(key);
        next = Number.isInteger(key) ? container[key] : undefined;
      } else {
        next = Object.hasOwn(container, key)
          ? (container as Record<string, unknown>)[String(key)]
          : undefined;
      }
      if (next === undefined) break;
      containers.push(container);
      keys.push(key);
      container = next;
    }
    for (let i = containers.length - 1; i >= 0; i--) {
      const p = userPos(containers[i] as object, keys[i] as string | number);
      if (p !== undefined) return { best: p, depth: i + 1, value: container };
    }
    return { best: undefined, depth: 0, value: container };
  };
  // Line starts are indexed on the first diagnostic: a valid document never needs them.
  let lines: number[] | undefined;
  return {
    at(path) {
      const r = walk(path);
      if (r.best === undefined) return { file, line: 1, column: 1 };
      const last = path[path.length - 1];
      const scalar = r.value === null || typeof r.value !== "object";
      if (text !== undefined && r.depth === path.length && scalar && typeof last === "string") {
        lines ??= lineStarts(text);
        return valueAfterLabel(text, lines, r.best) ?? r.best;
      }
      return r.best;
    },
    exact(path) {
      const r = walk(path);
      return r.depth === path.length ? r.best : undefined;
    },
  };
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** The position of the value in `label: value`, given the label's position; undefined if unsure. */
function valueAfterLabel(text: string, lines: number[], label: SourcePosition): SourcePosition | undefined {
  const lineStart = lines[label.line - 1];
  if (lineStart === undefined) return undefined;
  let i = lineStart + label.column - 1;
  if (text[i] === '"') {
    for (i++; i < text.length && text[i] !== '"' && text[i] !== "\n"; i++) if (text[i] === "\\") i++;
    if (text[i] !== '"') return undefined;
    i++;
  } else {
    while (i < text.length && /[A-Za-z0-9_$#]/.test(text[i] as string)) i++;
  }
  if (text[i] === "?" || text[i] === "!") i++;
  while (text[i] === " " || text[i] === "\t") i++;
  if (text[i] !== ":") return undefined;
  i++;
  while (text[i] === " " || text[i] === "\t") i++;
  if (i >= text.length || text[i] === "\n" || text[i] === "\r") return undefined;
  const lineEnd = lines[label.line] ?? text.length + 1;
  if (i >= lineEnd) return undefined;
  return { file: label.file, line: label.line, column: i - lineStart + 1 };
}
