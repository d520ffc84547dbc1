import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { objectKey, parseObjectKey } from "../model/object-ref.js";
import { parseSelector } from "../model/selector.js";
import { HISTORY_KINDS } from "../store/history-of-event.js";
import type { LogHistoryPage, LogHistoryQuery, LogPerfdataQuery } from "../store/log-history.js";
import type { ObjectIndex } from "../store/object-index.js";
import type { PerfdataSeriesSet } from "../store/perfdata-buckets.js";
import type { HistoryView } from "../store/projection.js";
import type { HistoryRecord } from "../store/records.js";
import { ringHistoryPage } from "../store/ring-history.js";
import type {
  ListHistoryRequest,
  ListHistoryResponseSchema,
  ListPerfdataRequest,
  ListPerfdataResponseSchema,
} from "./gen/svc/v1/query_service_pb.js";
import { State, StateType } from "./gen/svc/v1/types_pb.js";
import { decodeHistoryToken, encodeHistoryToken, type HistoryFilters } from "./history-token.js";
import { stateOf, stateTypeOf } from "./status-message.js";

/** What ListHistory and ListPerfdata read: the live index and ring, and the log (Core's). */
export interface HistorySource {
  readonly view: { readonly index: ObjectIndex; readonly projection: { history(): HistoryView } };
  historyFromLog?(q: LogHistoryQuery): Promise<LogHistoryPage>;
  perfdataFromLog?(q: LogPerfdataQuery): Promise<PerfdataSeriesSet>;
}

const DEFAULT_PAGE = 100;
const MAX_PAGE = 1000;
const DEFAULT_POINTS = 1000;
const MAX_POINTS = 10_000;
/** How long one page's scan of the log may run before it answers what it found, with a token. */
const SCAN_BUDGET_MS = 2_000;

/**
 * ListHistory: the plain newest-first request (no range, kinds or selector) from the projection's
 * ring where that gives the log's answer; anything else, or a page beyond the ring, from the event
 * log on its own thread (src/store/log-history.ts). Pages are bound to their request by the token
 * (src/api/history-token.ts) and cut by sequence number, so appends never shift them.
 */
export async function listHistory(
  src: HistorySource,
  req: ListHistoryRequest,
): Promise<MessageInitShape<typeof ListHistoryResponseSchema>> {
  const limit = pageSize(req.pageSize);
  const since = timeOf(req.since, "since");
  const until = timeOf(req.until, "until");
  if (since !== undefined && until !== undefined && since > until) {
    throw new ConnectError("since is after until", Code.InvalidArgument);
  }
  for (const k of req.kinds) {
    if (!HISTORY_KINDS.has(k)) {
      throw new ConnectError(
        `unknown kind ${JSON.stringify(k).slice(0, 200)}: one of ${[...HISTORY_KINDS].join(", ")}`,
        Code.InvalidArgument,
      );
    }
  }
  const filters: HistoryFilters = {
    ...(req.host === undefined ? {} : { host: req.host }),
    ...(req.service === undefined ? {} : { service: req.service }),
    selector: req.selector,
    kinds: req.kinds,
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    oldestFirst: req.oldestFirst,
  };
  const cursor = decodeHistoryToken(filters, req.pageToken);
  const { index, projection } = src.view;
  const keys = objectKeys(index, req.host, req.service, req.selector);
  const answer = (page: { readonly items: readonly HistoryRecord[]; readonly cursor?: number }) => ({
    entries: page.items.map(historyEntry),
    nextPageToken: page.cursor === undefined ? "" : encodeHistoryToken(filters, page.cursor),
  });
  const plain =
    since === undefined && until === undefined && req.kinds.length === 0 && req.selector.trim() === "";
  let head: readonly HistoryRecord[] = [];
  let from = cursor;
  if (plain && !req.oldestFirst) {
    // The ring's entries first; the log only for what lies below them.
    const ring = ringHistoryPage(projection.history(), keys?.[0], cursor, limit);
    if (ring.below === undefined) return answer(ring);
    // Without the log (a server that reads only its projection): what the ring holds.
    if (src.historyFromLog === undefined) return answer({ items: ring.items });
    // A full page and nothing more in the ring: the next page (from the log) may be empty.
    if (ring.items.length === limit) return answer({ items: ring.items, cursor: ring.below });
    head = ring.items;
    from = Number.isFinite(ring.below) ? ring.below : cursor;
  }
  const readLog = src.historyFromLog;
  if (readLog === undefined) {
    throw new ConnectError(
      "history beyond the newest entries is not served by this server",
      Code.Unimplemented,
    );
  }
  const page = await fromLog(() =>
    readLog.call(src, {
      ...(keys === undefined ? {} : { keys }),
      ...(req.kinds.length === 0 ? {} : { kinds: [...new Set(req.kinds)] }),
      ...(since === undefined ? {} : { since }),
      ...(until === undefined ? {} : { until }),
      oldestFirst: req.oldestFirst,
      ...(from === undefined ? {} : { cursor: from }),
      limit: limit - head.length,
      budgetMs: SCAN_BUDGET_MS,
    }),
  );
  const items = [...head, ...page.items];
  return answer(page.cursor === undefined ? { items } : { items, cursor: page.cursor });
}

/** ListPerfdata: one object's results in the log, as series reduced to about max_points. */
export async function listPerfdata(
  src: HistorySource,
  req: ListPerfdataRequest,
): Promise<MessageInitShape<typeof ListPerfdataResponseSchema>> {
  const since = timeOf(req.since, "since");
  const until = timeOf(req.until, "until");
  if (since !== undefined && until !== undefined && since > until) {
    throw new ConnectError("since is after until", Code.InvalidArgument);
  }
  if (req.maxPoints < 0) throw new ConnectError("max_points must not be negative", Code.InvalidArgument);
  if (req.host === "") throw new ConnectError("host is missing", Code.InvalidArgument);
  const key = (objectKeys(src.view.index, req.host, req.service, "") as string[])[0] as string;
  const readLog = src.perfdataFromLog;
  if (readLog === undefined)
    throw new ConnectError("perfdata is not served by this server", Code.Unimplemented);
  const s = await fromLog(() =>
    readLog.call(src, {
      key,
      ...(since === undefined ? {} : { since }),
      ...(until === undefined ? {} : { until }),
      labels: [...new Set(req.labels)],
      maxPoints: req.maxPoints === 0 ? DEFAULT_POINTS : Math.min(req.maxPoints, MAX_POINTS),
    }),
  );
  return {
    times: Array.from(s.times, (t) => timestampFromMs(t)),
    series: s.series.map((x) => ({
      label: x.label,
      uom: x.uom,
      values: Array.from(x.values),
      warn: x.warn,
      crit: x.crit,
      ...(x.min === undefined ? {} : { min: x.min }),
      ...(x.max === undefined ? {} : { max: x.max }),
    })),
    downsampled: s.downsampled,
  };
}

/**
 * The keys of the objects a request names: one object (a host alone is the host's own events),
 * the configured objects a selector matches (and, with host, the host's own object among them), or
 * undefined for every object. not_found for an object that is not configured; invalid_argument
 * for a selector that does not parse or a service without its host.
 */
function objectKeys(
  index: ObjectIndex,
  host: string | undefined,
  service: string | undefined,
  selector: string,
): string[] | undefined {
  let one: string | undefined;
  if (host !== undefined) {
    one = service === undefined ? host : objectKey({ host, service });
    if (service === undefined ? index.position(host) === undefined : index.position(one) === undefined) {
      const what = service === undefined ? `host "${host}"` : `service "${one}"`;
      throw new ConnectError(`${what.slice(0, 300)} is not configured`, Code.NotFound);
    }
  } else if (service !== undefined) {
    throw new ConnectError("service given without host", Code.InvalidArgument);
  }
  if (selector.trim() === "") return one === undefined ? undefined : [one];
  const parsed = parseSelector(selector);
  if (!parsed.ok) {
    throw new ConnectError(
      `selector ${JSON.stringify(selector).slice(0, 200)}, column ${parsed.column}: ${parsed.message}`,
      Code.InvalidArgument,
    );
  }
  const keys: string[] = [];
  for (const p of index.matching(parsed.selector)) {
    const k = index.keyAt(p);
    if (one === undefined || k === one) keys.push(k);
  }
  return keys;
}

/** A read of the log, its failure as the API says it (never the internal cause). */
async function fromLog<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch {
    throw new ConnectError("reading the event log failed", Code.Internal);
  }
}

/** The largest time a Timestamp may hold (9999-12-31T23:59:59Z) and the smallest (0001-01-01). */
const MAX_TIMESTAMP_SECONDS = 253_402_300_799n;
const MIN_TIMESTAMP_SECONDS = -62_135_596_800n;

/** A request's Timestamp in ms since the epoch; undefined when absent, invalid_argument when no time. */
function timeOf(t: { seconds: bigint; nanos: number } | undefined, name: string): number | undefined {
  if (t === undefined) return undefined;
  if (
    t.seconds > MAX_TIMESTAMP_SECONDS ||
    t.seconds < MIN_TIMESTAMP_SECONDS ||
    !Number.isInteger(t.nanos) ||
    t.nanos < 0 ||
    t.nanos > 999_999_999
  ) {
    throw new ConnectError(`${name} is not a valid timestamp`, Code.InvalidArgument);
  }
  return Number(t.seconds) * 1000 + Math.floor(t.nanos / 1_000_000);
}

function pageSize(n: number): number {
  if (n < 0) throw new ConnectError("page_size must not be negative", Code.InvalidArgument);
  return n === 0 ? DEFAULT_PAGE : Math.min(n, MAX_PAGE);
}

/** A history record as the API's entry. */
export function historyEntry(h: HistoryRecord) {
  const ref = parseObjectKey(h.key);
  return {
    sequence: BigInt(h.seq),
    at: timestampFromMs(h.at),
    kind: h.kind,
    host: ref.host,
    ...(ref.service === undefined ? {} : { service: ref.service }),
    state: h.state === undefined ? State.UNSPECIFIED : stateOf(h.state),
    stateType: h.stateType === undefined ? StateType.UNSPECIFIED : stateTypeOf(h.stateType),
    attempt: h.attempt ?? 0,
    output: h.output,
    author: h.author,
    comment: h.comment,
  };
}
