import type { PerfDatum } from "../model/check-result.js";
import type { DisabledFields } from "../model/object-flags.js";
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
export interface StatusRecord extends DisabledFields {
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
  /** The zone worker that ran the last check (its id); absent when this server ran it, or it was passive. */
  readonly checkedBy?: string;
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

/**
 * A scheduled or active downtime, as ListDowntimes shows it and command validation needs it. The
 * optional fields are absent only in records from snapshots taken before they existed.
 */
export interface DowntimeRecord {
  readonly id: string;
  readonly start: number;
  readonly end: number;
  /** Keys of the objects it covers, in the order they were scheduled. */
  readonly objects?: readonly string[];
  readonly author?: string;
  readonly comment?: string;
  readonly flexible?: boolean;
  /** Flexible only: how long it lasts once started (ms). */
  readonly durationMs?: number;
  /** When it was scheduled (ms since the epoch). */
  readonly created?: number;
  readonly active?: boolean;
  /** Once active: when it started and when it ends. */
  readonly startedAt?: number;
  readonly endsAt?: number;
}

/**
 * A comment on an object, as ListComments shows it: an operator's (AddComment) or an
 * acknowledgement's (id `ack:<key>`, gone with the acknowledgement).
 */
export interface CommentRecord {
  readonly id: string;
  readonly key: string;
  readonly kind: "user" | "acknowledgement";
  readonly author: string;
  readonly text: string;
  /** Ms since the epoch. */
  readonly created: number;
}

/**
 * An object's check rescheduled (CheckRescheduled) and not yet run: the scheduler runs it at
 * `runAt`. Pending until the object has a result checked at or after `runAt`.
 */
export interface RescheduleRecord {
  readonly key: string;
  /** Ms since the epoch. */
  readonly runAt: number;
  readonly force: boolean;
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
  /** The switches an operator turned off (src/model/object-flags.ts), all of them: 0 for none. */
  readonly disabled?: number;
}

/**
 * Records and their keys one after another: record i is `lengths[i]` bytes of `bytes` (latin1, one
 * char per byte) and its key `keyLengths[i]` bytes of `keyBytes` (UTF-8). Each buffer is its own
 * ArrayBuffer, so a part crossing threads transfers them instead of copying: the message the
 * receiving thread deserializes is then a few kilobytes. V8 deserializes a message of more than
 * 100 KB straight into the old generation (ValueDeserializer's pretenuring), which at full-speed
 * ingestion made the reader collect its old generation every second or two; now the key strings
 * it makes from these buffers die young.
 */
export interface PackedStatuses {
  readonly bytes: Uint8Array;
  readonly lengths: Uint32Array;
  readonly keyBytes: Uint8Array;
  readonly keyLengths: Uint32Array;
}

/**
 * What the writer tells the readers after a group of commands is applied and its events are
 * committed: the objects that have no record any more, the records that changed (encoded, key by
 * key: `statusKeys[i]` has `statuses[i]`), patches to records, the history entries appended, and
 * the downtimes that appeared or went away — applied in that order. A key is in at most one of
 * the records and `patches`. `eventSeq` is the last event sequence number the delta covers (0: a
 * part that does not complete one). Records travel encoded; a part sent to the reader's thread
 * carries them and their keys `packed` (src/store/packed-statuses.ts).
 */
export interface ProjectionDelta {
  readonly eventSeq: number;
  readonly removed: readonly string[];
  /** The keys of the records; empty when they are `packed`. */
  readonly statusKeys: readonly string[];
  /** The records of `statusKeys`, a string each; empty when they are `packed`. */
  readonly statuses: readonly EncodedStatus[];
  /** The records and their keys in buffers of their own instead of a string each (see PackedStatuses). */
  readonly packed?: PackedStatuses;
  readonly patches: readonly StatusPatch[];
  readonly history: readonly HistoryRecord[];
  /** Downtimes that appeared or changed (a whole record each, replacing the one held). */
  readonly downtimesAdded: readonly DowntimeRecord[];
  readonly downtimesRemoved: readonly string[];
  /** Comments that appeared (or replace one held, as an acknowledgement's does) and went away. */
  readonly commentsAdded?: readonly CommentRecord[];
  readonly commentsRemoved?: readonly string[];
  /** Checks rescheduled (applied after the records: one a record already ran is not pending). */
  readonly reschedules?: readonly RescheduleRecord[];
}
