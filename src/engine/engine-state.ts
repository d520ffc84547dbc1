import type { Config } from "../model/config.js";
import type { ObjectRecord } from "./object-record.js";
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
  objects: ObjectRecord[];
}

/** Everything the engine knows; the functions of src/engine/ mutate it on behalf of `apply`. */
export interface EngineState {
  config: Config;
  digest: string;
  /** Every configured object by key, in config order (hosts, each followed by its services). */
  objects: Map<string, ObjectRecord>;
  hosts: number;
  services: number;
  /** Downtimes by id, in scheduling order. */
  downtimes: Map<string, Downtime>;
  /** Counts scheduled downtimes: their ordinals and engine-assigned ids (`dt-<n>`). */
  downtimeSeq: number;
  timers: TimerQueue<ObjectRecord | Downtime>;
}
