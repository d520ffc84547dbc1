import { parseSelector } from "../model/selector.js";
import { RejectedError } from "./errors.js";
import type { ObjectIndex } from "./object-index.js";
import type { Projection } from "./projection.js";
import type { DowntimeRecord } from "./records.js";

/** What ListDowntimes selects. */
export interface DowntimeQuery {
  /** Downtimes covering this host or one of its services (with `service`: that service). */
  readonly host?: string;
  readonly service?: string;
  /** Downtimes covering at least one object the selector matches; empty matches everything. */
  readonly selector?: string;
  /** Only active, or only future (scheduled, not started) ones; absent: both. */
  readonly state?: "active" | "future";
  /** 1..1000; the API layer applies defaults and clamping. */
  readonly pageSize: number;
  readonly pageToken?: string;
}

/**
 * ListDowntimes: the projection's downtimes that pass the query, by start then id, a page at a
 * time. A page token names the last downtime returned (its start and id), so a page survives
 * downtimes coming and going. Downtimes are few (an operator's), so each call scans them all.
 */
export function listDowntimes(
  index: ObjectIndex,
  projection: Projection,
  q: DowntimeQuery,
): { readonly items: readonly DowntimeRecord[]; readonly nextPageToken: string; readonly totalSize: number } {
  const covers = objectFilter(index, q);
  const matched: DowntimeRecord[] = [];
  for (const d of projection.downtimes().values()) {
    if (q.state === "active" && d.active !== true) continue;
    if (q.state === "future" && d.active === true) continue;
    if (covers !== undefined && !(d.objects ?? []).some(covers)) continue;
    matched.push(d);
  }
  matched.sort(byStart);
  let from = 0;
  if (q.pageToken) {
    const after = decodeToken(q.pageToken);
    while (from < matched.length && byStart(matched[from] as DowntimeRecord, after) <= 0) from++;
  }
  const items = matched.slice(from, from + q.pageSize);
  const last = items[items.length - 1];
  const more = from + q.pageSize < matched.length;
  return { items, totalSize: matched.length, nextPageToken: more && last ? encodeToken(last) : "" };
}

/** A predicate on object keys for the query's host, service and selector; undefined: any object. */
function objectFilter(index: ObjectIndex, q: DowntimeQuery): ((key: string) => boolean) | undefined {
  const tests: ((key: string) => boolean)[] = [];
  if (q.host !== undefined) {
    if (q.service !== undefined) {
      const key = `${q.host}!${q.service}`;
      if (index.position(key) === undefined)
        throw new RejectedError("not_found", `service "${key}" is not configured`);
      tests.push((k) => k === key);
    } else {
      const [lo, hi] = index.hostRange(q.host);
      if (lo === hi) throw new RejectedError("not_found", `host "${q.host}" is not configured`);
      const host = q.host;
      const prefix = `${host}!`;
      tests.push((k) => k === host || k.startsWith(prefix));
    }
  } else if (q.service !== undefined) {
    throw new RejectedError("invalid", "service given without host");
  }
  if (q.selector !== undefined && q.selector.trim() !== "") {
    const parsed = parseSelector(q.selector);
    if (!parsed.ok) {
      throw new RejectedError(
        "invalid",
        `selector "${q.selector}", column ${parsed.column}: ${parsed.message}`,
      );
    }
    const positions = index.matching(parsed.selector);
    tests.push((k) => {
      const p = index.position(k);
      return p !== undefined && includes(positions, p);
    });
  }
  if (tests.length === 0) return undefined;
  return (k) => tests.every((t) => t(k));
}

function includes(a: Uint32Array, x: number): boolean {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < a.length && a[lo] === x;
}

function byStart(a: Pick<DowntimeRecord, "start" | "id">, b: Pick<DowntimeRecord, "start" | "id">): number {
  return a.start - b.start || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function encodeToken(d: DowntimeRecord): string {
  return Buffer.from(`d:${d.start}:${d.id}`).toString("base64url");
}

function decodeToken(token: string): Pick<DowntimeRecord, "start" | "id"> {
  const m = /^d:(-?[0-9]{1,16}):(.+)$/s.exec(Buffer.from(token, "base64url").toString());
  if (m === null) throw new RejectedError("invalid", "invalid page token");
  return { start: Number(m[1]), id: m[2] as string };
}
