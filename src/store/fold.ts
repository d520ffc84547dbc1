import type { LookoutEvent } from "../model/events.js";
import { applyFlagsChange, OBJECT_SWITCHES, switchWords } from "../model/object-flags.js";
import { mergePatches, patchRecord } from "./projection.js";
import type {
  CommentRecord,
  DowntimeRecord,
  HistoryRecord,
  ProjectionDelta,
  RescheduleRecord,
  StatusPatch,
} from "./records.js";
import { decodeStatus, type EncodedStatus, encodeStatus, encodeStatusOf } from "./status-codec.js";

/** The fold's own state, kept in snapshots. */
export interface FoldSnapshot {
  /** Object key → ids of the downtimes active on it. */
  readonly active: readonly (readonly [string, readonly string[]])[];
  /** Downtime id → keys of the objects it covers (scheduled or active). */
  readonly covers: readonly (readonly [string, readonly string[]])[];
  /** The downtimes' records (absent in snapshots taken before ListDowntimes). */
  readonly downtimes?: readonly DowntimeRecord[];
}

/** The id of an acknowledgement's comment: one per object, replaced by a new acknowledgement. */
export function ackCommentId(key: string): string {
  return `ack:${key}`;
}

/**
 * Turns committed events into projection deltas. Events are folded in log order with `apply`; `take`
 * returns what changed since the last `take`: each new result's record once, however many events
 * touched it, and patches (acknowledgement, downtime) for objects without a new result. The fold
 * needs no projection — patches apply to whatever record the reader holds — so the writer keeps
 * none (the reader's copy is the only one; see docs/storage.md).
 *
 * Rebuilding from the log (a fresh replay) is folding every event from sequence 1 and applying the
 * deltas to an empty projection.
 */
export interface Fold {
  apply(event: LookoutEvent, seq: number): void;
  /** The delta since the last take, or undefined when no event was folded since. */
  take(): ProjectionDelta | undefined;
  snapshot(): FoldSnapshot;
}

/** Creates a fold, optionally restoring its state from a snapshot. */
export function createFold(from?: FoldSnapshot): Fold {
  const active = new Map<string, Set<string>>((from?.active ?? []).map(([k, ids]) => [k, new Set(ids)]));
  const covers = new Map<string, Set<string>>((from?.covers ?? []).map(([id, keys]) => [id, new Set(keys)]));
  /** Every known downtime's record, as the reader holds it (objects aside: `covers` has them). */
  const records = new Map<string, DowntimeRecord>((from?.downtimes ?? []).map((d) => [d.id, d]));
  for (const id of covers.keys()) if (!records.has(id)) records.set(id, { id, start: 0, end: 0 });
  /** Records of the objects that had a result since the last take, encoded. */
  let statuses = new Map<string, EncodedStatus>();
  let patches = new Map<string, StatusPatch>();
  let removed = new Set<string>();
  let history: HistoryRecord[] = [];
  /** Downtimes whose record changed since the last take (sent whole, with their objects). */
  let dtAdded = new Set<string>();
  let dtRemoved = new Set<string>();
  let cAdded = new Map<string, CommentRecord>();
  let cRemoved = new Set<string>();
  let reschedules = new Map<string, RescheduleRecord>();
  let lastSeq = 0;
  let folded = false;

  const patch = (p: StatusPatch): void => {
    const full = statuses.get(p.key);
    if (full !== undefined) {
      statuses.set(p.key, encodeStatus(patchRecord(decodeStatus(p.key, full), p)));
      return;
    }
    const prior = patches.get(p.key);
    patches.set(p.key, prior === undefined ? p : mergePatches(prior, p));
  };
  const note = (seq: number, e: LookoutEvent & { key: string }, extra: Partial<HistoryRecord> = {}): void => {
    history.push({ seq, at: e.at, kind: e.type, key: e.key, output: "", author: "", comment: "", ...extra });
  };
  const changed = (id: string, f: (d: DowntimeRecord) => DowntimeRecord): void => {
    const d = records.get(id);
    if (d === undefined) return;
    records.set(id, f(d));
    dtAdded.add(id);
  };
  const addComment = (c: CommentRecord): void => {
    cRemoved.delete(c.id);
    cAdded.set(c.id, c);
  };
  const removeComment = (id: string): void => {
    cAdded.delete(id);
    cRemoved.add(id);
  };
  const uncover = (id: string, key: string): void => {
    const keys = covers.get(id);
    keys?.delete(key);
    if (keys !== undefined && keys.size === 0) {
      covers.delete(id);
      records.delete(id);
      dtAdded.delete(id);
      dtRemoved.add(id);
    } else if (keys !== undefined) {
      dtAdded.add(id);
    }
    const ids = active.get(key);
    ids?.delete(id);
    if (ids !== undefined && ids.size === 0) active.delete(key);
  };
  const inDowntime = (key: string): boolean => (active.get(key)?.size ?? 0) > 0;
  /** A downtime's record with the objects it covers now, as a delta carries it. */
  const withObjects = (id: string): DowntimeRecord => ({
    ...(records.get(id) ?? { id, start: 0, end: 0 }),
    objects: [...(covers.get(id) ?? [])],
  });

  return {
    apply(e, seq) {
      lastSeq = seq;
      folded = true;
      switch (e.type) {
        case "CheckResultProcessed":
          patches.delete(e.key);
          statuses.set(e.key, encodeStatusOf(e.status, e.result, e.result.executor));
          return;
        case "StateChange":
          note(seq, e, { state: e.to, stateType: e.stateType, attempt: e.attempt, output: e.output });
          return;
        case "FlappingStart":
        case "FlappingStop":
          note(seq, e);
          return;
        case "AcknowledgementSet": {
          const { author, comment, sticky, setAt } = e;
          patch({ key: e.key, acknowledgement: { author, comment, sticky, setAt } });
          addComment({
            id: ackCommentId(e.key),
            key: e.key,
            kind: "acknowledgement",
            author,
            text: comment,
            created: setAt,
          });
          note(seq, e, { state: e.state, author, comment });
          return;
        }
        case "AcknowledgementRemoved":
          patch({ key: e.key, acknowledgement: null });
          removeComment(ackCommentId(e.key));
          note(seq, e, { comment: e.reason });
          return;
        case "DowntimeScheduled": {
          let keys = covers.get(e.id);
          if (keys === undefined) {
            keys = new Set();
            covers.set(e.id, keys);
            const flexible = e.flexible === true;
            records.set(e.id, {
              id: e.id,
              start: e.start,
              end: e.end,
              author: e.author,
              comment: e.comment,
              flexible,
              ...(flexible ? { durationMs: e.durationMs ?? 0 } : {}),
              created: e.at,
              active: false,
            });
            dtRemoved.delete(e.id);
          }
          keys.add(e.key);
          dtAdded.add(e.id);
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
          changed(e.id, (d) =>
            d.active === true ? d : { ...d, active: true, startedAt: e.at, endsAt: e.end },
          );
          patch({ key: e.key, inDowntime: true });
          note(seq, e);
          return;
        }
        case "DowntimeEnded":
        case "DowntimeExpired":
        case "DowntimeDeleted": {
          const was = inDowntime(e.key);
          uncover(e.id, e.key);
          if (was && !inDowntime(e.key)) patch({ key: e.key, inDowntime: false });
          note(seq, e, e.type === "DowntimeDeleted" ? { comment: e.reason } : {});
          return;
        }
        case "CommentAdded":
          addComment({
            id: e.id,
            key: e.key,
            kind: "user",
            author: e.author,
            text: e.comment,
            created: e.at,
          });
          note(seq, e, { author: e.author, comment: e.comment });
          return;
        case "CommentDeleted":
          removeComment(e.id);
          note(seq, e, { comment: e.reason });
          return;
        case "CustomNotification":
          note(seq, e, { author: e.author, comment: e.comment });
          return;
        case "ObjectFlagsChanged": {
          const off = OBJECT_SWITCHES.filter((s) => !e.flags[s]).map(switchWords);
          patch({ key: e.key, disabled: applyFlagsChange(0, e.flags) });
          note(seq, e, { author: e.author, comment: off.length === 0 ? "all on" : `off: ${off.join(", ")}` });
          return;
        }
        case "CheckRescheduled":
          reschedules.delete(e.key); // the newest last
          reschedules.set(e.key, { key: e.key, runAt: e.runAt, force: e.force });
          note(seq, e, {
            author: e.author,
            comment: `${e.force ? "forced check" : "check"} at ${new Date(e.runAt).toISOString()}`,
          });
          return;
        case "ObjectAdded":
          return;
        case "ObjectRemoved":
          statuses.delete(e.key);
          patches.delete(e.key);
          removed.add(e.key);
          // Its acknowledgement goes with it, and so does the acknowledgement's comment.
          removeComment(ackCommentId(e.key));
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
        case "NotificationSuppressed":
          note(seq, e, {
            comment: `${e.kind} suppressed: ${e.reason}${e.contact === undefined ? "" : ` (${e.contact})`}`,
          });
          return;
        case "ConfigApplied":
        case "SinkFlushed":
        case "SinkFailed":
        case "SinkDropped":
          return;
        default: {
          const never: never = e;
          throw new Error(`unknown event ${(never as { type: string }).type}`);
        }
      }
    },
    take() {
      if (!folded) return undefined;
      const delta: ProjectionDelta = {
        eventSeq: lastSeq,
        removed: [...removed],
        statusKeys: [...statuses.keys()],
        statuses: [...statuses.values()],
        patches: [...patches.values()],
        history,
        downtimesAdded: [...dtAdded].map((id) => withObjects(id)),
        downtimesRemoved: [...dtRemoved],
        ...(cAdded.size === 0 ? {} : { commentsAdded: [...cAdded.values()] }),
        ...(cRemoved.size === 0 ? {} : { commentsRemoved: [...cRemoved] }),
        ...(reschedules.size === 0 ? {} : { reschedules: [...reschedules.values()] }),
      };
      reschedules = new Map();
      statuses = new Map();
      patches = new Map();
      removed = new Set();
      history = [];
      dtAdded = new Set();
      dtRemoved = new Set();
      cAdded = new Map();
      cRemoved = new Set();
      folded = false;
      return delta;
    },
    snapshot: () => ({
      active: [...active].map(([k, ids]) => [k, [...ids].sort()] as const),
      covers: [...covers].map(([id, keys]) => [id, [...keys].sort()] as const),
      downtimes: [...records.values()],
    }),
  };
}
