import type { PerfDatum } from "../model/check-result.js";
import type { ObjectState, StateType } from "../model/state.js";
import type { EncodedStatus } from "./status-codec.js";

/** An acknowledgement as the projection shows it. */
export interface AckRecord {
  readonly author: string;
  readonly comment: string;
  readonly sticky: boolean;
  /** Milliseconds since the epoch. */
  readonly setAt: number;
}

/**
 * The current status of one object that has had at least one result; an object without a record
 * is PENDING. Times are whole milliseconds since the epoch. The projection holds records encoded
 * (src/store/status-codec.ts) and decodes one when asked; a decoded record is the caller's copy.
 */
export interface StatusRecord {
  /** The object key (`host` or `host!service`). */
  readonly key: string;
  readonly state: ObjectState;
  readonly stateType: StateType;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly output: string;
  readonly longOutput: string;
  readonly perfdata: readonly PerfDatum[];
  readonly lastCheck?: number;
  readonly lastStateChange?: number;
  readonly lastHardStateChange?: number;
  readonly flapping: boolean;
  /** 0..100. */
  readonly flapPercent: number;
  readonly acknowledgement?: AckRecord;
  readonly inDowntime: boolean;
}

/** One entry of the history feed: an event that matters to an operator, by its log sequence number. */
export interface HistoryRecord {
  readonly seq: number;
  readonly at: number;
  /** The event kind (StateChange, FlappingStart, AcknowledgementSet, DowntimeStarted, ...). */
  readonly kind: string;
  readonly key: string;
  readonly state?: ObjectState;
  readonly stateType?: StateType;
  readonly attempt?: number;
  readonly output: string;
  readonly author: string;
  readonly comment: string;
}

/** A scheduled downtime, as far as reads and command validation need it. */
export interface DowntimeRecord {
  readonly id: string;
  readonly start: number;
  readonly end: number;
}

/**
 * A change to an object's record that is not a new result: an acknowledgement set (`null`:
 * removed), or the object entering or leaving downtime. Applied to the current record, or to a
 * PENDING record when the object has none.
 */
export interface StatusPatch {
  readonly key: string;
  readonly acknowledgement?: AckRecord | null;
  readonly inDowntime?: boolean;
}

/**
 * What the writer tells the readers after a group of commands is applied and its events are
 * committed: the objects that have no record any more, the records that changed (encoded, key by
 * key: `statusKeys[i]` has `statuses[i]`), patches to records, the history entries appended, and
 * the downtimes that appeared or went away — applied in that order. A key is in at most one of
 * `statusKeys` and `patches`. `eventSeq` is the last event sequence number the delta covers (0: a
 * part that does not complete one). Records travel encoded; a part sent to the reader's thread
 * carries them `packed` (src/store/delta-buffer.ts), so that a key is all it allocates per record.
 */
export interface ProjectionDelta {
  readonly eventSeq: number;
  readonly removed: readonly string[];
  readonly statusKeys: readonly string[];
  /** The records of `statusKeys`, a string each; empty when they are `packed`. */
  readonly statuses: readonly EncodedStatus[];
  /**
   * The records of `statusKeys` one after another in one buffer, `lengths[i]` bytes each, instead
   * of a string each: one allocation outside the heap where the receiving thread would otherwise
   * make thousands of strings, and collect young twice as often.
   */
  readonly packed?: { readonly bytes: Uint8Array; readonly lengths: Uint32Array };
  readonly patches: readonly StatusPatch[];
  readonly history: readonly HistoryRecord[];
  readonly downtimesAdded: readonly DowntimeRecord[];
  readonly downtimesRemoved: readonly string[];
}
