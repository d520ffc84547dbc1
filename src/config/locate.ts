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
   * line 1, column 1 when nothing along the path was written by the user.
   */
  at(path: DocPath): SourcePosition;
  /** The user's position of exactly this field, if the user's file wrote it. */
  exact(path: DocPath): SourcePosition | undefined;
}

/** A locator over exported data and its position index. */
export function createLocator(data: unknown, positions: PositionLookup | undefined, file: string): Locator {
  const userPos = (container: object, key: string | number): SourcePosition | undefined => {
    if (positions === undefined) return undefined;
    for (const p of positions.of(container, key)) if (p.file === file) return p;
    return undefined;
  };
  const walk = (path: DocPath): { best: SourcePosition | undefined; depth: number } => {
    let container: unknown = data;
    let best: SourcePosition | undefined;
    let depth = 0;
    for (let i = 0; i < path.length; i++) {
      const key = path[i] as string | number;
      if (container === null || typeof container !== "object") break;
      const next = Array.isArray(container)
        ? typeof key === "number"
          ? container[key]
          : undefined
        : Object.hasOwn(container, key)
          ? (container as Record<string, unknown>)[String(key)]
          : undefined;
      if (next === undefined) break;
      const p = userPos(container, key);
      if (p !== undefined) {
        best = p;
        depth = i + 1;
      }
      container = next;
    }
    return { best, depth };
  };
  return {
    at(path) {
      return walk(path).best ?? { file, line: 1, column: 1 };
    },
    exact(path) {
      const r = walk(path);
      return r.depth === path.length ? r.best : undefined;
    },
  };
}
