/**
 * What the replication tests compare: the state a server answers through its API (ListStatus,
 * ListHistory, ListDowntimes, ListComments, every page, in their proto JSON form with every field
 * written), and the first field where two servers differ. Nothing is normalised but the order of
 * each list: two replicas of one command log must answer the same objects, history, downtimes and
 * comments with the same values, sequence numbers, ids and timestamps included.
 */

/** A JSON value as `toJson` writes it. */
export type Json = null | boolean | number | string | readonly Json[] | { readonly [k: string]: Json };

/** One server's answers, each list as the API returned it (all pages). */
export interface ReplicaState {
  readonly status: readonly Json[];
  readonly history: readonly Json[];
  readonly downtimes: readonly Json[];
  readonly comments: readonly Json[];
}

/** The lists compared, with the key each element is matched by. */
const LISTS: readonly (readonly [keyof ReplicaState, (e: Json) => string])[] = [
  ["status", (e) => `${field(e, "host")}!${field(e, "service")}`],
  ["history", (e) => field(e, "sequence")],
  ["downtimes", (e) => field(e, "id")],
  ["comments", (e) => field(e, "id")],
];

function field(e: Json, k: string): string {
  if (e === null || typeof e !== "object" || Array.isArray(e)) return "";
  const v = (e as { readonly [k: string]: Json })[k];
  return v === undefined || v === null ? "" : String(v);
}

const show = (v: Json | undefined): string => (v === undefined ? "absent" : JSON.stringify(v));

/** The first path under `path` where `a` and `b` differ, with both values; undefined if equal. */
function firstDifference(path: string, a: Json | undefined, b: Json | undefined): string | undefined {
  if (a === b) return undefined;
  if (a === null || b === null || a === undefined || b === undefined || typeof a !== typeof b)
    return `${path}: ${show(a)} ≠ ${show(b)}`;
  if (typeof a !== "object") return `${path}: ${show(a)} ≠ ${show(b)}`;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return `${path}: ${show(a)} ≠ ${show(b)}`;
    const xs = a as readonly Json[];
    const ys = b as readonly Json[];
    for (let i = 0; i < Math.max(xs.length, ys.length); i++) {
      const d = firstDifference(`${path}[${i}]`, xs[i], ys[i]);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  const x = a as { readonly [k: string]: Json };
  const y = b as { readonly [k: string]: Json };
  const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort();
  for (const k of keys) {
    const d = firstDifference(`${path}.${k}`, x[k], y[k]);
    if (d !== undefined) return d;
  }
  return undefined;
}

/**
 * Compares two servers' states list by list, element by element matched by key (object, history
 * sequence, downtime id, comment id), field by field; answers the first difference as
 * `status[web!http].acknowledgement.author: "a" ≠ "b" (leader s1 vs s2)`, or undefined when equal.
 */
export function compareReplicas(
  aName: string,
  a: ReplicaState,
  bName: string,
  b: ReplicaState,
): string | undefined {
  const who = `(${aName} vs ${bName})`;
  for (const [list, keyOf] of LISTS) {
    const xs = new Map(a[list].map((e) => [keyOf(e), e]));
    const ys = new Map(b[list].map((e) => [keyOf(e), e]));
    const sizes = `${aName} has ${a[list].length}, ${bName} ${b[list].length}`;
    if (xs.size !== a[list].length || ys.size !== b[list].length)
      return `${list}: a key listed twice (${sizes}) ${who}`;
    const keys = [...new Set([...xs.keys(), ...ys.keys()])].sort(byKey);
    for (const k of keys) {
      const x = xs.get(k);
      const y = ys.get(k);
      if (x === undefined) return `${list}[${k}]: absent on ${aName}, on ${bName} ${show(y)} (${sizes})`;
      if (y === undefined) return `${list}[${k}]: on ${aName} ${show(x)}, absent on ${bName} (${sizes})`;
      const d = firstDifference(`${list}[${k}]`, x, y);
      if (d !== undefined) return `${d} ${who}`;
    }
  }
  return undefined;
}

/** Numeric keys (history sequences) in number order, the rest as strings. */
function byKey(x: string, y: string): number {
  if (/^\d+$/.test(x) && /^\d+$/.test(y)) return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The value at a dotted `path` in a JSON object (`acknowledgement.comment`), or undefined. */
export function fieldOf(j: Json | undefined, path: string): Json | undefined {
  let v: Json | undefined = j;
  for (const k of path.split(".")) {
    if (v === null || v === undefined || typeof v !== "object" || Array.isArray(v)) return undefined;
    v = (v as { readonly [k: string]: Json })[k];
  }
  return v;
}
