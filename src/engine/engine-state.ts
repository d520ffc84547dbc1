import type { ObjectTable } from "./object-table.js";
import type { TimerQueue } from "./timer-queue.js";

/**
 * A downtime over one or more objects, all resolved when it was scheduled: fixed (active over
 * [start, end)) or flexible (waits in [start, end) for a problem, then lasts `durationMs`).
 */
export interface Downtime {
  readonly id: string;
  /** Scheduling order: breaks ties between timers due at the same instant. */
  readonly ord: number;
  readonly start: number;
  readonly end: number;
  readonly author: string;
  readonly comment: string;
  readonly flexible: boolean;
  /** Flexible only: how long it lasts once started (ms); 0 for a fixed one. */
  readonly durationMs: number;
  /** When it was scheduled (ms since the epoch). */
  readonly created: number;
  active: boolean;
  /**
   * When it ends: `end` for a fixed one and for a flexible one still waiting (it then expires
   * unused), its start plus `durationMs` once a flexible one started. Its end timer is due then.
   */
  endsAt: number;
  /** Object numbers in the current table (renumbered by every reload). */
  objects: number[];
}

/** An operator's comment on one object. */
export interface Comment {
  readonly id: string;
  /** The object's number in the current table (renumbered by every reload). */
  object: number;
  readonly author: string;
  readonly text: string;
  /** When it was added (ms since the epoch). */
  readonly created: number;
}

/**
 * A timer's subject: an object number (freshness; the queue is rebuilt whenever the table is
 * replaced, so a number always means the current table) or a downtime.
 */
export type TimerRef = number | Downtime;

/** Everything the engine knows; the functions of src/engine/ mutate it on behalf of `apply`. */
export interface EngineState {
  digest: string;
  /** Every configured object, in config order (hosts, each followed by its services). */
  objects: ObjectTable;
  hosts: number;
  services: number;
  /** Downtimes by id, in scheduling order. */
  downtimes: Map<string, Downtime>;
  /** Counts scheduled downtimes: their ordinals and engine-assigned ids (`dt-<n>`). */
  downtimeSeq: number;
  /**
   * The flexible downtimes waiting for a problem (derived from `downtimes`, not snapshotted): what
   * a problem result looks through, so that fixed and started downtimes cost it nothing.
   */
  waiting: Set<Downtime>;
  /** Operators' comments by id, in the order they were added. */
  comments: Map<string, Comment>;
  /** Counts added comments: the engine-assigned ids (`c-<n>`). */
  commentSeq: number;
  timers: TimerQueue<TimerRef>;
}
