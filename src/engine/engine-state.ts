import type { ObjectTable } from "./object-table.js";
import type { TimerQueue } from "./timer-queue.js";

/** A fixed downtime window over one or more objects, all resolved when it was scheduled. */
export interface Downtime {
  readonly id: string;
  /** Scheduling order: breaks ties between timers due at the same instant. */
  readonly ord: number;
  readonly start: number;
  readonly end: number;
  readonly author: string;
  readonly comment: string;
  active: boolean;
  /** Object numbers in the current table (renumbered by every reload). */
  objects: number[];
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
  timers: TimerQueue<TimerRef>;
}
