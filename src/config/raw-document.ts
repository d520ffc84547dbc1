import type { CueError, CueValue, PositionIndex } from "../cue/index.js";
import { isObj } from "./decode-reader.js";
import type { PositionLookup } from "./locate.js";

/** The user's document as data, with positions, for explaining errors. */
export interface RawDocument {
  readonly data: unknown;
  readonly positions: PositionLookup;
}

const MAPS = new Set(["hosts", "commands", "contacts", "notifications", "views", "sinks"]);

/** The prefixes of an error path worth exporting on their own, widest first. */
function candidates(path: readonly string[]): string[][] {
  const out: string[][] = [];
  const push = (p: readonly string[]) => {
    if (p.length > 0 && p.length <= path.length) out.push([...p]);
  };
  if (MAPS.has(path[0] as string)) {
    push(path.slice(0, 2));
    if (path[0] === "hosts" && path[2] === "check") push(path.slice(0, 3));
    if (path[0] === "hosts" && path[2] === "services") {
      push(path.slice(0, 4));
      if (path[4] === "check") push(path.slice(0, 5));
    }
  } else {
    push(path.slice(0, 1));
  }
  push(path.slice(0, -1));
  return out;
}

/**
 * The user's document exported on its own. When the whole will not export (a field left as
 * `string` for the schema to fill, a conflict), the parts the errors point at are exported one by
 * one (an entry of `hosts`, a check …) and assembled, so one incomplete field does not hide the
 * types and values the diagnostics need everywhere else. `tryWhole` false goes to the parts at
 * once: when the errors are those of a few hosts of many, exporting them costs a few hosts.
 */
export function exportRaw(
  user: CueValue,
  errors: readonly CueError[],
  tryWhole = true,
): RawDocument | undefined {
  if (tryWhole) {
    const whole = user.export();
    if (whole.ok) return whole;
  }
  const root: Record<string, unknown> = {};
  const indexes: PositionIndex[] = [];
  const done = new Set<string>();
  const place = (path: readonly string[], value: unknown) => {
    let o: Record<string, unknown> = root;
    for (const k of path.slice(0, -1)) {
      const next = o[k];
      if (!isObj(next)) o[k] = {};
      o = o[k] as Record<string, unknown>;
    }
    o[path[path.length - 1] as string] = value;
  };
  for (const e of errors) {
    for (const p of candidates(e.path)) {
      const key = p.join("\0");
      if (done.has(key)) break;
      const r = user.lookup(p)?.export();
      if (r === undefined || !r.ok) continue;
      done.add(key);
      place(p, r.data);
      indexes.push(r.positions);
      break;
    }
  }
  if (indexes.length === 0) return undefined;
  return {
    data: root,
    positions: {
      of(container, key) {
        for (const index of indexes) {
          const found = index.of(container, key);
          if (found.length > 0) return found;
        }
        return [];
      },
    },
  };
}
