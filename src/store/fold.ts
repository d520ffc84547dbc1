import type { LookoutEvent } from "../model/events.js";
import type { Projection } from "./projection.js";
import type { DowntimeRecord, HistoryRecord, ProjectionDelta, StatusRecord } from "./records.js";

/** The fold's own state beyond the projection, kept in snapshots. */
export interface FoldSnapshot {
  /** Object key → ids of the downtimes active on it. */
  readonly active: readonly (readonly [string, readonly string[]])[];
  /** Downtime id → keys of the objects it covers (scheduled or active). */
  readonly covers: readonly (readonly [string, readonly string[]])[];
}

/**
 * Turns committed events into projection deltas. Events are folded in log order with `apply`; `take`
 * returns what changed since the last `take` (each changed record once, however many events touched
 * it) and leaves the projection unchanged — the caller applies the delta to every copy.
 *
 * Only the writer folds; readers receive deltas. Rebuilding from the log (a fresh replay) is folding
 * every event from sequence 1 into an empty projection.
 */
export interface Fold {
  apply(event: LookoutEvent, seq: number): void;
  /** The delta since the last take, or undefined when nothing changed and no event was folded. */
  take(): ProjectionDelta | undefined;
  snapshot(): FoldSnapshot;
}

const PENDING_RECORD: Omit<StatusRecord, "key"> = {
  state: "PENDING",
  stateType: "HARD",
  attempt: 1,
  maxAttempts: 1,
  output: "",
  longOutput: "",
  perfdata: [],
  flapping: false,
  flapPercent: 0,
  inDowntime: false,
};

/** Creates a fold over a projection, optionally restoring its own state from a snapshot. */
export function createFold(projection: Projection, from?: FoldSnapshot): Fold {
  const active = new Map<string, Set<string>>((from?.active ?? []).map(([k, ids]) => [k, new Set(ids)]));
  const covers = new Map<string, Set<string>>((from?.covers ?? []).map(([id, keys]) => [id, new Set(keys)]));
  let dirty = new Map<string, StatusRecord>();
  let removed = new Set<string>();
  let history: HistoryRecord[] = [];
  let dtAdded = new Map<string, DowntimeRecord>();
  let dtRemoved = new Set<string>();
  let lastSeq = 0;

  const current = (key: string): StatusRecord =>
    dirty.get(key) ?? (removed.has(key) ? undefined : projection.status(key)) ?? { key, ...PENDING_RECORD };
  const put = (r: StatusRecord): void => {
    dirty.set(r.key, r);
    removed.delete(r.key);
  };
  const note = (seq: number, e: LookoutEvent & { key: string }, extra: Partial<HistoryRecord> = {}): void => {
    history.push({ seq, at: e.at, kind: e.type, key: e.key, output: "", author: "", comment: "", ...extra });
  };
  const uncover = (id: string, key: string): void => {
    const keys = covers.get(id);
    keys?.delete(key);
    if (keys !== undefined && keys.size === 0) {
      covers.delete(id);
      dtAdded.delete(id);
      dtRemoved.add(id);
    }
    const ids = active.get(key);
    ids?.delete(id);
    if (ids !== undefined && ids.size === 0) active.delete(key);
  };
  const setDowntimeFlag = (key: string): void => {
    const inDowntime = (active.get(key)?.size ?? 0) > 0;
    const r = current(key);
    if (r.inDowntime !== inDowntime) put({ ...r, inDowntime });
  };

  return {
    apply(e, seq) {
      lastSeq = seq;
      switch (e.type) {
        case "CheckResultProcessed": {
          const s = e.status;
          const r = e.result;
          put({
            key: e.key,
            state: s.state,
            stateType: s.stateType,
            attempt: s.attempt,
            maxAttempts: s.maxAttempts,
            output: r.output,
            longOutput: r.longOutput,
            perfdata: r.perfdata,
            ...(s.lastCheck > 0 ? { lastCheck: s.lastCheck } : {}),
            ...(s.lastStateChange > 0 ? { lastStateChange: s.lastStateChange } : {}),
            ...(s.lastHardStateChange > 0 ? { lastHardStateChange: s.lastHardStateChange } : {}),
            flapping: s.flapping,
            flapPercent: s.flapPercent,
            ...(s.acknowledgement
              ? {
                  acknowledgement: {
                    author: s.acknowledgement.author,
                    comment: s.acknowledgement.comment,
                    sticky: s.acknowledgement.sticky,
                    setAt: s.acknowledgement.setAt,
                  },
                }
              : {}),
            inDowntime: s.inDowntime,
          });
          return;
        }
        case "StateChange":
          note(seq, e, { state: e.to, stateType: e.stateType, attempt: e.attempt, output: e.output });
          return;
        case "FlappingStart":
        case "FlappingStop":
          note(seq, e);
          return;
        case "AcknowledgementSet": {
          const { author, comment, sticky, setAt } = e;
          put({ ...current(e.key), acknowledgement: { author, comment, sticky, setAt } });
          note(seq, e, { state: e.state, author, comment });
          return;
        }
        case "AcknowledgementRemoved": {
          const { acknowledgement: _, ...rest } = current(e.key);
          put(rest);
          note(seq, e, { comment: e.reason });
          return;
        }
        case "DowntimeScheduled": {
          let keys = covers.get(e.id);
          if (keys === undefined) {
            keys = new Set();
            covers.set(e.id, keys);
            dtAdded.set(e.id, { id: e.id, start: e.start, end: e.end });
            dtRemoved.delete(e.id);
          }
          keys.add(e.key);
          note(seq, e, { author: e.author, comment: e.comment });
          return;
        }
        case "DowntimeStarted": {
          let ids = active.get(e.key);
          if (ids === undefined) {
            ids = new Set();
            active.set(e.key, ids);
          }
          ids.add(e.id);
          setDowntimeFlag(e.key);
          note(seq, e);
          return;
        }
        case "DowntimeEnded":
        case "DowntimeDeleted":
          uncover(e.id, e.key);
          setDowntimeFlag(e.key);
          note(seq, e, e.type === "DowntimeDeleted" ? { comment: e.reason } : {});
          return;
        case "ObjectAdded":
          return;
        case "ObjectRemoved":
          dirty.delete(e.key);
          removed.add(e.key);
          for (const id of active.get(e.key) ?? []) uncover(id, e.key);
          return;
        case "CommandRejected":
          if (e.key !== undefined) note(seq, { ...e, key: e.key }, { comment: e.reason });
          return;
        case "NotificationSent":
          note(seq, e, { comment: `${e.kind} to ${e.contact}` });
          return;
        case "NotificationFailed":
          note(seq, e, { comment: `${e.kind} to ${e.contact}: ${e.error}` });
          return;
        case "ConfigApplied":
        case "SinkFlushed":
        case "SinkFailed":
          return;
        default: {
          const never: never = e;
          throw new Error(`unknown event ${(never as { type: string }).type}`);
        }
      }
    },
    take() {
      if (lastSeq <= projection.eventSeq() && dirty.size === 0 && removed.size === 0) return undefined;
      const delta: ProjectionDelta = {
        eventSeq: Math.max(lastSeq, projection.eventSeq()),
        statuses: [...dirty.values()],
        removed: [...removed],
        history,
        downtimesAdded: [...dtAdded.values()],
        downtimesRemoved: [...dtRemoved],
      };
      dirty = new Map();
      removed = new Set();
      history = [];
      dtAdded = new Map();
      dtRemoved = new Set();
      return delta;
    },
    snapshot: () => ({
      active: [...active].map(([k, ids]) => [k, [...ids].sort()] as const),
      covers: [...covers].map(([id, keys]) => [id, [...keys].sort()] as const),
    }),
  };
}
