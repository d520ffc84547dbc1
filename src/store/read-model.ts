import { parseObjectKey } from "../model/object-ref.js";
import { parseSelector } from "../model/selector.js";
import { RejectedError } from "./errors.js";
import type { ObjectEntry, ObjectIndex } from "./object-index.js";
import type { Projection } from "./projection.js";
import type { HistoryRecord, StatusRecord } from "./records.js";

/** A page of results and the token for the next one ("" on the last page). */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextPageToken: string;
}

/** What ListStatus and ListObjects select: a host, a service, the fleet; optionally a selector. */
export interface ObjectQuery {
  readonly host?: string;
  readonly service?: string;
  /** Label selector text (docs/selectors.md); empty or absent matches everything. */
  readonly selector?: string;
  /** 1..1000; the API layer applies defaults and clamping. */
  readonly pageSize: number;
  readonly pageToken?: string;
}

/** One row of ListStatus: the configured object and its status (undefined: PENDING). */
export interface StatusView {
  readonly entry: ObjectEntry;
  readonly status: StatusRecord | undefined;
}

export interface HistoryQuery {
  readonly host?: string;
  readonly service?: string;
  readonly pageSize: number;
  readonly pageToken?: string;
}

/** A page of objects by position in the index (ObjectIndex.entry/hostAt/keyAt read them). */
export interface PositionPage {
  readonly positions: readonly number[];
  readonly totalSize: number;
  readonly nextPageToken: string;
}

/**
 * Paged queries over the current object index and projection. Pure reads of in-memory structures:
 * no I/O, no locks, cost proportional to the page (plus one selector evaluation per object the
 * first time a selector is seen for a config).
 */
export function listPositions(index: ObjectIndex, q: ObjectQuery): PositionPage {
  const { positions, lo, hi } = candidates(index, q);
  const total = hi - lo;
  let from = lo;
  if (q.pageToken) {
    const ref = parseObjectKey(decodeKeyToken(q.pageToken));
    const after = index.upperBound(ref.host, ref.service);
    from = positions === undefined ? Math.max(lo, after) : Math.max(lo, lowerBoundNum(positions, after));
  }
  const to = Math.min(hi, from + q.pageSize);
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(positions === undefined ? i : (positions[i] as number));
  const last = out[out.length - 1];
  return {
    positions: out,
    totalSize: total,
    nextPageToken: to < hi && last !== undefined ? encodeKeyToken(index.keyAt(last)) : "",
  };
}

/** ListObjects: a page of configured objects. */
export function listObjects(
  index: ObjectIndex,
  q: ObjectQuery,
): Page<ObjectEntry> & { readonly totalSize: number } {
  const page = listPositions(index, q);
  return {
    items: page.positions.map((p) => index.entry(p)),
    totalSize: page.totalSize,
    nextPageToken: page.nextPageToken,
  };
}

/** ListStatus: listObjects joined with the projection's records. */
export function listStatus(
  index: ObjectIndex,
  projection: Projection,
  q: ObjectQuery,
): Page<StatusView> & { readonly totalSize: number } {
  const page = listObjects(index, q);
  return {
    totalSize: page.totalSize,
    nextPageToken: page.nextPageToken,
    items: page.items.map((entry) => ({ entry, status: projection.status(entry.key) })),
  };
}

/** ListHistory: newest first, for one object (host alone: the host object) or the whole fleet. */
export function listHistory(projection: Projection, q: HistoryQuery): Page<HistoryRecord> {
  const key = q.host === undefined ? undefined : q.service === undefined ? q.host : `${q.host}!${q.service}`;
  const h = projection.history();
  let i = h.size - 1;
  if (q.pageToken) {
    const before = decodeSeqToken(q.pageToken);
    // First position whose seq >= before; we continue just below it.
    let lo = 0;
    let hi = h.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (h.seqAt(mid) < before) lo = mid + 1;
      else hi = mid;
    }
    i = lo - 1;
  }
  const items: HistoryRecord[] = [];
  for (; i >= 0 && items.length < q.pageSize; i--) {
    if (key === undefined || h.keyAt(i) === key) items.push(h.at(i));
  }
  let more = false;
  for (let j = i; j >= 0; j--) {
    if (key === undefined || h.keyAt(j) === key) {
      more = true;
      break;
    }
  }
  const last = items[items.length - 1];
  return { items, nextPageToken: more && last ? String(last.seq) : "" };
}

function candidates(
  index: ObjectIndex,
  q: ObjectQuery,
): { positions: Uint32Array | undefined; lo: number; hi: number } {
  let lo = 0;
  let hi = index.size;
  if (q.host !== undefined) {
    if (q.service !== undefined) {
      const p = index.position(`${q.host}!${q.service}`);
      if (p === undefined)
        throw new RejectedError("not_found", `service "${q.host}!${q.service}" is not configured`);
      [lo, hi] = [p, p + 1];
    } else {
      [lo, hi] = index.hostRange(q.host);
      if (lo === hi) throw new RejectedError("not_found", `host "${q.host}" is not configured`);
    }
  } else if (q.service !== undefined) {
    throw new RejectedError("invalid", "service given without host");
  }
  if (q.selector === undefined || q.selector.trim() === "") return { positions: undefined, lo, hi };
  const parsed = parseSelector(q.selector);
  if (!parsed.ok) {
    throw new RejectedError(
      "invalid",
      `selector "${q.selector}", column ${parsed.column}: ${parsed.message}`,
    );
  }
  const positions = index.matching(parsed.selector);
  return { positions, lo: lowerBoundNum(positions, lo), hi: lowerBoundNum(positions, hi) };
}

function lowerBoundNum(a: Uint32Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Page tokens name the last item returned, so a page survives objects being added or removed. */
function encodeKeyToken(key: string): string {
  return Buffer.from(`k:${key}`).toString("base64url");
}

function decodeKeyToken(token: string): string {
  const text = Buffer.from(token, "base64url").toString();
  if (!text.startsWith("k:") || text.length < 3) throw new RejectedError("invalid", "invalid page token");
  return text.slice(2);
}

function decodeSeqToken(token: string): number {
  const n = /^[0-9]{1,15}$/.test(token) ? Number(token) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new RejectedError("invalid", "invalid page token");
  return n;
}
