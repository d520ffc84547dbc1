import type { LookoutEvent } from "../model/events.js";
import { OBJECT_SWITCHES, switchWords } from "../model/object-flags.js";
import type { HistoryRecord } from "./records.js";

/**
 * The event kinds that make a history entry (ListHistory's `kinds`): what the fold notes
 * (src/store/fold.ts). A kind outside this set is no kind of history entry.
 */
export const HISTORY_KINDS: ReadonlySet<string> = new Set<LookoutEvent["type"]>([
  "StateChange",
  "FlappingStart",
  "FlappingStop",
  "AcknowledgementSet",
  "AcknowledgementRemoved",
  "DowntimeScheduled",
  "DowntimeStarted",
  "DowntimeEnded",
  "DowntimeExpired",
  "DowntimeDeleted",
  "CommentAdded",
  "CommentDeleted",
  "CustomNotification",
  "ObjectFlagsChanged",
  "CheckRescheduled",
  "CommandRejected",
  "NotificationSent",
  "NotificationFailed",
  "NotificationSuppressed",
]);

/**
 * The object whose history an event of the log enters (undefined: the event makes no entry): what
 * the writer indexes in the log's `history` table (src/store/event-log.ts), by the same rule as
 * historyRecordOf. Cheap for the events that make none (a set lookup).
 */
export function historyKeyOf(e: LookoutEvent): string | undefined {
  return HISTORY_KINDS.has(e.type) ? historyRecordOf(e, 0)?.key : undefined;
}

/**
 * The history entry an event of the log makes, exactly as the fold makes it for the projection's
 * feed (src/store/fold.ts; `history-of-event.test.ts` keeps the two equal), or undefined for an
 * event that makes none (results, config and sink events, a rejection about no object). What
 * ListHistory reads from the log beyond the projection's ring (src/store/log-history.ts).
 */
export function historyRecordOf(e: LookoutEvent, seq: number): HistoryRecord | undefined {
  const entry = (key: string, extra: Partial<HistoryRecord> = {}): HistoryRecord => ({
    seq,
    at: e.at,
    kind: e.type,
    key,
    output: "",
    author: "",
    comment: "",
    ...extra,
  });
  switch (e.type) {
    case "StateChange":
      return entry(e.key, { state: e.to, stateType: e.stateType, attempt: e.attempt, output: e.output });
    case "FlappingStart":
    case "FlappingStop":
    case "DowntimeStarted":
    case "DowntimeEnded":
    case "DowntimeExpired":
      return entry(e.key);
    case "AcknowledgementSet":
      return entry(e.key, { state: e.state, author: e.author, comment: e.comment });
    case "AcknowledgementRemoved":
      return entry(e.key, { comment: e.reason });
    case "DowntimeScheduled":
      return entry(e.key, { author: e.author, comment: e.comment });
    case "DowntimeDeleted":
      return entry(e.key, { comment: e.reason });
    case "CommentAdded":
      return entry(e.key, { author: e.author, comment: e.comment });
    case "CommentDeleted":
      return entry(e.key, { comment: e.reason });
    case "CustomNotification":
      return entry(e.key, { author: e.author, comment: e.comment });
    case "ObjectFlagsChanged": {
      const off = OBJECT_SWITCHES.filter((s) => !e.flags[s]).map(switchWords);
      return entry(e.key, {
        author: e.author,
        comment: off.length === 0 ? "all on" : `off: ${off.join(", ")}`,
      });
    }
    case "CheckRescheduled":
      return entry(e.key, {
        author: e.author,
        comment: `${e.force ? "forced check" : "check"} at ${new Date(e.runAt).toISOString()}`,
      });
    case "CommandRejected":
      return e.key === undefined ? undefined : entry(e.key, { comment: e.reason });
    case "NotificationSent":
      return entry(e.key, { comment: `${e.kind} to ${e.contact}` });
    case "NotificationFailed":
      return entry(e.key, { comment: `${e.kind} to ${e.contact}: ${e.error}` });
    case "NotificationSuppressed":
      return entry(e.key, {
        comment: `${e.kind} suppressed: ${e.reason}${e.contact === undefined ? "" : ` (${e.contact})`}`,
      });
    case "CheckResultProcessed":
    case "ObjectAdded":
    case "ObjectRemoved":
    case "ConfigApplied":
    case "SinkFlushed":
    case "SinkFailed":
    case "SinkDropped":
      return undefined;
    default: {
      const never: never = e;
      throw new Error(`unknown event ${(never as { type: string }).type}`);
    }
  }
}
