import { durationFromMs, timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { CoreView } from "../core/core.js";
import { parseObjectKey } from "../model/object-ref.js";
import { HOST_STATES, type ObjectState, SERVICE_STATES } from "../model/state.js";
import { listComments } from "../store/comment-query.js";
import { listDowntimes } from "../store/downtime-query.js";
import type { LogHistoryPage, LogHistoryQuery, LogPerfdataQuery } from "../store/log-history.js";
import type { ObjectIndex } from "../store/object-index.js";
import type { PerfdataSeriesSet } from "../store/perfdata-buckets.js";
import type { Projection } from "../store/projection.js";
import { listObjects, listPositions } from "../store/read-model.js";
import type { CommentRecord, DowntimeRecord } from "../store/records.js";
import {
  CommentKind,
  DowntimeState,
  type ListStatusRequest,
  type QueryService,
} from "./gen/svc/v1/query_service_pb.js";
import { State } from "./gen/svc/v1/types_pb.js";
import { listHistory, listPerfdata } from "./history-query.js";
import { toConnectError } from "./pipeline-errors.js";
import { objectStatus, stateOf } from "./status-message.js";
import { encodedStatusPage, isBinaryContentType, statusPageBytes } from "./status-page.js";

/** One object's routing answer, as the notifier gives it (src/notify/preview.ts). */
export interface NotificationPreviewAnswer {
  readonly key: string;
  readonly policy: string;
  readonly kind?: string;
  readonly level: number;
  readonly contacts: readonly string[];
  readonly suppressed?: string;
  readonly until?: number;
  readonly told: readonly string[];
  readonly nextNotificationAt: number;
  readonly escalatesAt: number;
}

/** The notifier's routing preview: its own decision code over its own state. */
export interface NotificationPreviewer {
  preview(q: { keys: readonly string[]; state?: ObjectState; at: number }): NotificationPreviewAnswer[];
}

export interface QueryServiceDeps {
  /** The running binary's version (`vX.Y.Z` or `dev`). */
  readonly version: string;
  /**
   * The projection every read is served from; without it only GetServerInfo is implemented. With
   * `projectionAt` (Core's), ListStatus answers `at` (a moment in the past); without it, `at` is
   * `unimplemented`.
   */
  readonly core?: {
    readonly view: CoreView;
    projectionAt?(at: number): Promise<Projection>;
    /** ListHistory beyond the projection's ring, and ListPerfdata; without them, `unimplemented`. */
    historyFromLog?(q: LogHistoryQuery): Promise<LogHistoryPage>;
    perfdataFromLog?(q: LogPerfdataQuery): Promise<PerfdataSeriesSet>;
  };
  /** PreviewNotifications; `unimplemented` without it. */
  readonly notifications?: NotificationPreviewer;
  /** The time of a preview without `at`; Date.now by default. */
  readonly now?: () => number;
  /** A configured sink's state and counters (ListSinks); absent: every sink shows "stopped". */
  readonly sinkStatus?: (name: string) => SinkStatus | undefined;
  /** The live zone workers and whether this server leads (ListWorkers); absent without -nats. */
  readonly zoneWorkers?: () => ZoneWorkers;
}

/** What ListWorkers answers from: the zone machinery's last listing of the workers bucket. */
export interface ZoneWorkers {
  /** Whether this server schedules and ingests now. */
  readonly leading: boolean;
  readonly workers: readonly ZoneWorkerView[];
}

/**
 * A live worker as its liveness entry describes it (src/zones/worker.ts, WorkerInfo), with when the
 * entry was last refreshed. The entry is JSON written by whoever can reach NATS, so each field is
 * read for what it should be and nothing else in it is shown.
 */
export interface ZoneWorkerView {
  readonly id: string;
  readonly zone: string;
  /** Ms since the epoch. */
  readonly seenAt: number;
  readonly startedAt: number;
  readonly concurrency: number;
  readonly running: number;
  readonly done: number;
  readonly expired: number;
}

/** What ListSinks shows of a running sink besides its configuration (never URLs or headers). */
export interface SinkStatus {
  readonly state: "ok" | "retrying" | "stopped";
  readonly lagEvents: number;
  readonly lagSeconds: number;
  readonly sent: number;
  readonly dropped: number;
  readonly retries: number;
  /** Ms since the epoch; 0 when none. */
  readonly lastSuccessAt: number;
  readonly lastError: string;
}

const DEFAULT_PAGE = 100;
const MAX_PAGE = 1000;

/**
 * The read service. Every read is answered from the in-memory projection on this thread — no I/O,
 * no waiting on the writer. Pages are stable: a page token names the last object returned, so
 * objects added or removed by a reload never shift a page. Without a projection (deps.core absent)
 * the reads answer `unimplemented`: no read ever returns made-up data.
 */
export function createQueryService(deps: QueryServiceDeps): Partial<ServiceImpl<typeof QueryService>> {
  const getServerInfo = () => ({ version: deps.version });
  const core = deps.core;
  if (core === undefined) return { getServerInfo };
  const positions = (
    index: ObjectIndex,
    req: { host?: string; service?: string; selector: string; pageSize: number; pageToken: string },
  ) =>
    guard(() =>
      listPositions(index, {
        ...(req.host === undefined ? {} : { host: req.host }),
        ...(req.service === undefined ? {} : { service: req.service }),
        selector: req.selector,
        pageSize: pageSize(req.pageSize),
        pageToken: req.pageToken,
      }),
    );
  /**
   * ListStatus `at`: the page cut from the objects configured now (filters checked before any
   * rebuild), joined with the projection as it stood at that moment (src/store/as-of.ts).
   */
  const pastStatus = async (req: ListStatusRequest) => {
    const at = pastMoment(req.at);
    const projectionAt = core.projectionAt;
    if (projectionAt === undefined) {
      throw new ConnectError("at is not served by this server", Code.Unimplemented);
    }
    const { index } = core.view;
    const page = positions(index, req);
    let projection: Projection;
    try {
      projection = await projectionAt.call(core, at);
    } catch (e) {
      throw toConnectError(e);
    }
    return { index, projection, page };
  };
  const service: Partial<ServiceImpl<typeof QueryService>> = {
    getServerInfo,
    listStatus(req, ctx) {
      if (req.at !== undefined) {
        return pastStatus(req).then(({ index, projection, page }) =>
          isBinaryContentType(ctx.requestHeader.get("content-type"))
            ? encodedStatusPage(index, projection, page.positions, page.nextPageToken, page.totalSize)
            : {
                statuses: page.positions.map((p) =>
                  objectStatus(index.entry(p), projection.status(index.keyAt(p))),
                ),
                nextPageToken: page.nextPageToken,
                totalSize: page.totalSize,
              },
        );
      }
      const { index, projection } = core.view;
      const page = positions(index, req);
      // The hot path of every dashboard refresh: for the binary formats the page is spliced from
      // the records' encodings; JSON gets messages.
      if (isBinaryContentType(ctx.requestHeader.get("content-type"))) {
        return encodedStatusPage(index, projection, page.positions, page.nextPageToken, page.totalSize);
      }
      return {
        statuses: page.positions.map((p) => objectStatus(index.entry(p), projection.status(index.keyAt(p)))),
        nextPageToken: page.nextPageToken,
        totalSize: page.totalSize,
      };
    },
    listHistory(req) {
      return listHistory(core, req);
    },
    listPerfdata(req) {
      return listPerfdata(core, req);
    },
    listObjects(req) {
      const page = guard(() =>
        listObjects(core.view.index, {
          selector: req.selector,
          pageSize: pageSize(req.pageSize),
          pageToken: req.pageToken,
        }),
      );
      return {
        objects: page.items.map((e) => ({
          host: e.host.name,
          ...(e.service === undefined ? {} : { service: e.service.name }),
          labels: { ...e.labels },
          checkType: (e.service ?? e.host).check.type,
          zone: (e.service ?? e.host).zone,
          parents: e.service === undefined ? [...e.host.parents] : [],
          notification: (e.service ?? e.host).notification,
        })),
        nextPageToken: page.nextPageToken,
        totalSize: page.totalSize,
      };
    },
    listContacts() {
      return {
        contacts: sortedValues(core.view.index.config.contacts).map((c) => ({
          name: c.name,
          type: c.type,
          labels: { ...c.labels },
        })),
      };
    },
    listViews() {
      return {
        views: sortedValues(core.view.index.config.views).map((v) => ({
          name: v.name,
          selector: v.selector,
          description: v.description,
        })),
      };
    },
    listSinks() {
      return {
        sinks: sortedValues(core.view.index.config.sinks).map((s) => {
          const st = deps.sinkStatus?.(s.name);
          return {
            name: s.name,
            type: s.type,
            input: s.input,
            selector: s.selector,
            state: st?.state ?? "stopped",
            lagEvents: BigInt(st?.lagEvents ?? 0),
            lagSeconds: st?.lagSeconds ?? 0,
            sent: BigInt(st?.sent ?? 0),
            dropped: BigInt(st?.dropped ?? 0),
            retries: BigInt(st?.retries ?? 0),
            ...(st === undefined || st.lastSuccessAt === 0
              ? {}
              : { lastSuccess: timestampFromMs(st.lastSuccessAt) }),
            lastError: st?.lastError ?? "",
          };
        }),
      };
    },
  };
  service.listDowntimes = (req) => {
    const { index, projection } = core.view;
    const state =
      req.state === DowntimeState.ACTIVE
        ? "active"
        : req.state === DowntimeState.FUTURE
          ? "future"
          : undefined;
    if (state === undefined && req.state !== DowntimeState.UNSPECIFIED) {
      throw new ConnectError(`unknown downtime state ${req.state}`, Code.InvalidArgument);
    }
    const page = guard(() =>
      listDowntimes(index, projection, {
        ...(req.host === undefined ? {} : { host: req.host }),
        ...(req.service === undefined ? {} : { service: req.service }),
        selector: req.selector,
        ...(state === undefined ? {} : { state }),
        pageSize: pageSize(req.pageSize),
        pageToken: req.pageToken,
      }),
    );
    return {
      downtimes: page.items.map(downtimeMessage),
      nextPageToken: page.nextPageToken,
      totalSize: page.totalSize,
    };
  };
  service.listComments = (req) => {
    const { index, projection } = core.view;
    const page = guard(() =>
      listComments(index, projection, {
        ...(req.host === undefined ? {} : { host: req.host }),
        ...(req.service === undefined ? {} : { service: req.service }),
        pageSize: pageSize(req.pageSize),
        pageToken: req.pageToken,
      }),
    );
    return {
      comments: page.items.map(commentMessage),
      nextPageToken: page.nextPageToken,
      totalSize: page.totalSize,
    };
  };
  service.listWorkers = () => {
    const z = deps.zoneWorkers?.() ?? { leading: true, workers: [] };
    return {
      leading: z.leading,
      workers: z.workers
        .map(zoneWorker)
        .sort((a, b) =>
          a.zone !== b.zone ? (a.zone < b.zone ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
        ),
    };
  };
  const previewer = deps.notifications;
  if (previewer !== undefined) {
    service.previewNotifications = (req) => {
      const { index } = core.view;
      const page = positions(index, req);
      const state = hypotheticalState(req.state);
      const at = req.at === undefined ? (deps.now ?? Date.now)() : timestampDate(req.at).getTime();
      const answers = previewer.preview({
        keys: page.positions.map((p) => index.keyAt(p)),
        ...(state === undefined ? {} : { state }),
        at,
      });
      return {
        previews: answers.map((a) => {
          const { host, service: svc } = parseObjectKey(a.key);
          return {
            host,
            ...(svc === undefined ? {} : { service: svc }),
            policy: a.policy,
            kind: a.kind ?? "",
            level: a.level,
            contacts: [...a.contacts],
            suppressed: a.suppressed ?? "",
            ...(a.until === undefined ? {} : { periodOpensAt: timestampFromMs(a.until) }),
            told: [...a.told],
            ...(a.nextNotificationAt > 0
              ? { nextNotificationAt: timestampFromMs(a.nextNotificationAt) }
              : {}),
            ...(a.escalatesAt > 0 ? { escalatesAt: timestampFromMs(a.escalatesAt) } : {}),
          };
        }),
        nextPageToken: page.nextPageToken,
        totalSize: page.totalSize,
      };
    };
  }
  pagers.set(service, (req, room) => {
    if (req.at !== undefined) {
      return pastStatus(req).then(({ index, projection, page }) =>
        statusPageBytes(index, projection, page.positions, page.nextPageToken, page.totalSize, room),
      );
    }
    const { index, projection } = core.view;
    const page = positions(index, req);
    return statusPageBytes(index, projection, page.positions, page.nextPageToken, page.totalSize, room);
  });
  return service;
}

/**
 * ListStatus answered as the bytes of its response message, `room` bytes into the buffer (for an
 * envelope's header): the same page as the service's, for a caller that serves the request
 * without the Connect router (src/api/list-status-fast-path.ts). Throws the service's ConnectError.
 */
export type StatusPager = (req: ListStatusRequest, room: number) => Uint8Array | Promise<Uint8Array>;

const pagers = new WeakMap<object, StatusPager>();

/** The pager of a service made by createQueryService over a projection; undefined otherwise. */
export function statusPagerOf(service: Partial<ServiceImpl<typeof QueryService>>): StatusPager | undefined {
  return pagers.get(service);
}

/** The largest time a Timestamp may hold: 9999-12-31T23:59:59Z. */
const MAX_TIMESTAMP_SECONDS = 253_402_300_799n;
/** The smallest: 0001-01-01T00:00:00Z. */
const MIN_TIMESTAMP_SECONDS = -62_135_596_800n;

/** ListStatus `at` in ms since the epoch; invalid_argument when it is no valid Timestamp. */
function pastMoment(at: { seconds: bigint; nanos: number } | undefined): number {
  if (at === undefined) throw new ConnectError("at is missing", Code.InvalidArgument);
  if (
    at.seconds > MAX_TIMESTAMP_SECONDS ||
    at.seconds < MIN_TIMESTAMP_SECONDS ||
    !Number.isInteger(at.nanos) ||
    at.nanos < 0 ||
    at.nanos > 999_999_999
  ) {
    throw new ConnectError("at is not a valid timestamp", Code.InvalidArgument);
  }
  return Number(at.seconds) * 1000 + Math.floor(at.nanos / 1_000_000);
}

function guard<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw toConnectError(e);
  }
}

function pageSize(n: number): number {
  if (n < 0) throw new ConnectError("page_size must not be negative", Code.InvalidArgument);
  return n === 0 ? DEFAULT_PAGE : Math.min(n, MAX_PAGE);
}

function sortedValues<T extends { readonly name: string }>(m: ReadonlyMap<string, T>): T[] {
  return [...m.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A worker's entry as a message: each field as its type, whatever the JSON held. */
function zoneWorker(w: ZoneWorkerView) {
  const text = (v: unknown): string => (typeof v === "string" ? v : "");
  const count = (v: unknown): number =>
    typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0;
  const time = (v: unknown) => (count(v) > 0 ? timestampFromMs(count(v)) : undefined);
  const seen = time(w.seenAt);
  const started = time(w.startedAt);
  return {
    zone: text(w.zone),
    id: text(w.id),
    ...(seen === undefined ? {} : { lastSeen: seen }),
    ...(started === undefined ? {} : { startedAt: started }),
    concurrency: Math.min(count(w.concurrency), 2 ** 31 - 1),
    running: Math.min(count(w.running), 2 ** 31 - 1),
    done: BigInt(count(w.done)),
    expired: BigInt(count(w.expired)),
  };
}

function downtimeMessage(d: DowntimeRecord) {
  return {
    id: d.id,
    objects: (d.objects ?? []).map((k) => {
      const ref = parseObjectKey(k);
      return { host: ref.host, ...(ref.service === undefined ? {} : { service: ref.service }) };
    }),
    author: d.author ?? "",
    comment: d.comment ?? "",
    start: timestampFromMs(d.start),
    end: timestampFromMs(d.end),
    flexible: d.flexible === true,
    ...(d.flexible === true ? { duration: durationFromMs(d.durationMs ?? 0) } : {}),
    ...(d.created === undefined ? {} : { created: timestampFromMs(d.created) }),
    state: d.active === true ? DowntimeState.ACTIVE : DowntimeState.FUTURE,
    ...(d.active === true && d.startedAt !== undefined ? { startedAt: timestampFromMs(d.startedAt) } : {}),
    ...(d.active === true && d.endsAt !== undefined ? { endsAt: timestampFromMs(d.endsAt) } : {}),
  };
}

function commentMessage(c: CommentRecord) {
  const ref = parseObjectKey(c.key);
  return {
    id: c.id,
    host: ref.host,
    ...(ref.service === undefined ? {} : { service: ref.service }),
    author: c.author,
    text: c.text,
    created: timestampFromMs(c.created),
    kind: c.kind === "acknowledgement" ? CommentKind.ACKNOWLEDGEMENT : CommentKind.USER,
  };
}

/** A request's hypothetical state; undefined for unspecified. */
/** The model state of each API state: stateOf (status-message.ts) read backwards. */
const MODEL_STATE_OF = new Map<State, ObjectState>(
  (["PENDING", ...SERVICE_STATES, ...HOST_STATES] as const).map((m) => [stateOf(m), m]),
);

function hypotheticalState(s: State): ObjectState | undefined {
  if (s === State.UNSPECIFIED) return undefined;
  const m = MODEL_STATE_OF.get(s);
  if (m === undefined) throw new ConnectError(`unknown state ${s}`, Code.InvalidArgument);
  return m;
}
