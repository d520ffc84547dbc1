import type { Registry } from "prom-client";
import type { CheckResult } from "../../model/check-result.js";
import type { Checker } from "../../model/checker.js";
import type { Clock } from "../../model/clock.js";
import type { CheckType, Config } from "../../model/config.js";
import type { ExitStatus } from "../../model/state.js";
import type { PlannedCheck } from "./plan.js";

/** Where the scheduler reports trouble that is not a check result (a checker that hangs, a bad hook). */
export interface SchedulerLogger {
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
  /** News that needs no action, such as the end of an overload; dropped when absent. */
  info?(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

export interface SchedulerOptions {
  /** The only source of time and timers. */
  readonly clock: Clock;
  /** One checker per check type; objects of a type without one get an UNKNOWN result each run. */
  readonly checkers: ReadonlyMap<CheckType, Checker>;
  /**
   * Receives every result, synchronously, in completion order; the same pipeline passive results
   * take. Must not throw (a throw is logged and the result is lost).
   */
  readonly submit: (result: CheckResult) => void;
  /**
   * Whether the object is in a soft non-OK state and so runs on `retry_interval`. Asked right after
   * `submit` returns; if results are applied later than that, call `resultApplied(key)` once applied.
   */
  readonly needsRetry: (key: string) => boolean;
  /**
   * Whether an operator turned the object's active checks off (SetObjectFlags): asked for each due
   * check before it would start or be routed; true skips the run, and the object stays on its
   * check_interval grid, so it resumes at its next slot once turned back on; `checkNow` runs it once
   * all the same (a forced check, as Icinga 2 runs one). Absent: never off. A
   * throw counts as false (and is logged). Must not call the scheduler.
   */
  readonly activeChecksDisabled?: (key: string) => boolean;
  /** The most runs in flight at once; due checks beyond it wait, earliest due first. */
  readonly concurrency: number;
  /** Where to register `lookout_checks_total` and the other metrics; none when absent. */
  readonly metrics?: Registry;
  readonly logger?: SchedulerLogger;
  /** The exit status of a timed-out run: 2 (CRITICAL, DOWN for hosts) unless set. */
  readonly timeoutStatus?: Exclude<ExitStatus, 0>;
  /**
   * How long an aborted checker may take to settle before its concurrency slot is reclaimed anyway
   * (and a warning logged): a checker that ignores its signal must not shrink the pool forever.
   */
  readonly abortGraceMs?: number;
  /**
   * Awaited between the steps of `prepareConfig`, with the objects the step just handled (at most
   * `DIFF_STEP_OBJECTS`). Unless set, it waits for the next macrotask (`setImmediate`), so timers,
   * I/O and the API run between steps.
   */
  readonly diffStep?: (objects: number) => Promise<void>;
  /**
   * Asked for each due check before it would start: true means the run was handed elsewhere (to a
   * zone's workers, src/zones/), and the object goes straight back on the schedule for its next
   * run, holding no concurrency slot; its result arrives later through the pipeline, and the
   * caller then calls `resultApplied`. Absent, or false: the check runs here. A throw counts as
   * false (and is logged). Must not call the scheduler.
   */
  readonly route?: (plan: PlannedCheck, due: number) => boolean;
  /**
   * For the first config applied only: an object whose last grid slot fell within this many ms
   * before now runs at once, with that slot as its due time, instead of at its next slot. A standby
   * taking over from a dead leader passes the time the leader may have been dead, so a run it
   * missed happens now, and one it did hand out is sent again under the same due time (which the
   * dispatcher's de-duplication drops). Once per object, whatever the window (0 unless set).
   */
  readonly catchUpMs?: number;
  /**
   * Whether an object has never been checked (no result yet). Such an object, when a config adds
   * it (start-up with no state, a reload), runs its first check soon instead of at its first grid
   * slot: at a spread offset within a window of a few seconds, widened for many objects
   * (first-run.ts); its later runs keep the grid. Absent: every object starts on its grid; so does
   * the first config applied with `catchUpMs` (a server taking over keeps to the grid, so that its
   * jobs de-duplicate). Must not call the scheduler; a throw counts as false.
   */
  readonly isNew?: (key: string) => boolean;
}

/** What `applyConfig` did, counted in objects. */
export interface ApplySummary {
  readonly added: number;
  readonly changed: number;
  readonly removed: number;
  readonly unchanged: number;
}

/**
 * A config planned against the schedule by `Scheduler.prepareConfig`, to be made the schedule by
 * `Scheduler.applyPrepared` of the same scheduler.
 */
export interface PreparedSchedule {
  readonly config: Config;
  /** Objects the planning looked at: the config's hosts and services and the schedule's entries. */
  readonly objects: number;
}

/**
 * Runs every active check of the applied config on its schedule. Single-threaded like the rest of
 * the engine: methods must not be called from inside `submit` or `needsRetry`.
 */
export interface Scheduler {
  /**
   * Makes `config` the schedule. Unchanged checks keep their next run time; new and changed ones
   * take their slot on the spread grid; removed ones leave, and their runs in flight are aborted
   * with their results dropped (so are runs of changed checks: they ran an outdated definition).
   */
  applyConfig(config: Config): ApplySummary;
  /**
   * Does the costly part of `applyConfig` (planning every object and comparing it with the
   * schedule) in steps of at most `DIFF_STEP_OBJECTS` objects, yielding between them (see
   * `SchedulerOptions.diffStep`), and changes nothing. Runs go on meanwhile.
   */
  prepareConfig(config: Config): Promise<PreparedSchedule>;
  /**
   * Makes a prepared config the schedule, exactly as `applyConfig(prepared.config)` would at this
   * moment, in one turn that only switches (some milliseconds at 55,000 objects). If another config
   * was applied after preparing began, the config is planned again within this call.
   */
  applyPrepared(prepared: PreparedSchedule): ApplySummary;
  /** Starts running due checks. Call once. */
  start(): void;
  /** Stops for good: no new runs; runs in flight are aborted and their results dropped. */
  stop(): Promise<void>;
  /** Re-asks `needsRetry(key)` and moves the object's next run if its interval changed. */
  resultApplied(key: string): void;
  /** Makes the object due now (a forced check); false when unknown, already running, or not started. */
  checkNow(key: string): boolean;
  /**
   * Runs the object's check at `at` (ms since the epoch; at once when past): one extra run, after
   * which the object keeps its grid — its next run is the grid slot it was waiting for (a soft
   * object retries from the extra run, as after any run). A newer call replaces a pending one; a
   * call while a run is in flight runs again after it. `force`: the run is forced (it runs even
   * where the object's active checks are switched off). False when the object is not scheduled.
   */
  reschedule(key: string, at: number, force: boolean): boolean;
  /** When the object runs next; undefined while it runs or when it is not scheduled. */
  nextRunAt(key: string): number | undefined;
  /** Objects on the schedule. */
  readonly size: number;
  /** Runs holding a concurrency slot. */
  readonly inFlight: number;
}
