/**
 * The commands the state engine applies. The single writer stamps every command with `at` (its
 * clock, in ms since the epoch) before it logs and applies it; the engine reads time from `at` and
 * nowhere else, so re-applying the logged commands to a restored snapshot gives the same state and
 * the same events. Commands hold a typed Config (ApplyConfig) and are not meant to be JSON as is;
 * the events they produce are (src/model/events.ts).
 */
import type { CheckResult } from "./check-result.js";
import type { Config } from "./config.js";
import type { RecordedEvent } from "./events.js";
import type { ObjectFlagsChange } from "./object-flags.js";
import type { ObjectRef } from "./object-ref.js";

/**
 * The objects a command addresses: one host or service, or every object a label selector
 * (src/model/selector.ts) matches at the time the command is applied.
 */
export type Target = { readonly object: ObjectRef } | { readonly selector: string };

/** Submits one check result (active, passive, or synthesized by freshness checking). */
export interface ProcessCheckResultCommand {
  readonly type: "ProcessCheckResult";
  readonly at: number;
  readonly result: CheckResult;
}

/**
 * Acknowledges a problem. Applies only to objects in a problem state (not OK/UP/PENDING). A
 * non-sticky acknowledgement is cleared by any state change; a sticky one only by a recovery.
 */
export interface AcknowledgeProblemCommand {
  readonly type: "AcknowledgeProblem";
  readonly at: number;
  readonly target: Target;
  readonly sticky: boolean;
  /** Whether contacts should get an ACKNOWLEDGEMENT notification; recorded for the notifier. */
  readonly notify?: boolean;
  readonly author: string;
  readonly comment: string;
}

/** Removes the acknowledgement of the targeted objects, if any. */
export interface RemoveAcknowledgementCommand {
  readonly type: "RemoveAcknowledgement";
  readonly at: number;
  readonly target: Target;
}

/**
 * Schedules a downtime for the targeted objects. One downtime (one id) covers every object the
 * target resolves to when the command is applied. A fixed downtime is active over [start, end); a
 * flexible one waits in that window for a covered object to be in a problem state, then is active
 * for `durationMs` (docs/states.md, "Flexible downtimes").
 */
export interface ScheduleDowntimeCommand {
  readonly type: "ScheduleDowntime";
  readonly at: number;
  readonly target: Target;
  /** Ms since the epoch. */
  readonly start: number;
  /** Ms since the epoch; must be after `start` and after `at`. */
  readonly end: number;
  readonly author: string;
  readonly comment: string;
  /**
   * The downtime's id, when the submitter assigns it (so it can return the id before the command is
   * applied). Absent: the engine assigns `dt-<n>` from its own counter. Must be unique.
   */
  readonly id?: string;
  /** A flexible downtime (absent: fixed). */
  readonly flexible?: boolean;
  /** With `flexible`: how long it lasts once started (ms, positive). */
  readonly durationMs?: number;
}

/** Deletes a downtime (scheduled or active) by id. */
export interface DeleteDowntimeCommand {
  readonly type: "DeleteDowntime";
  readonly at: number;
  readonly id: string;
}

/** Adds an operator's comment to one object. */
export interface AddCommentCommand {
  readonly type: "AddComment";
  readonly at: number;
  readonly object: ObjectRef;
  readonly author: string;
  readonly comment: string;
  /** The comment's id when the submitter assigns it (as ScheduleDowntime's); absent: `c-<n>`. */
  readonly id?: string;
}

/** Deletes an operator's comment by id. */
export interface DeleteCommentCommand {
  readonly type: "DeleteComment";
  readonly at: number;
  readonly id: string;
}

/**
 * Asks the notifier for a CUSTOM notification about each targeted object (docs/notifications.md):
 * the engine records one CustomNotification event per object; its state does not change.
 */
export interface SendCustomNotificationCommand {
  readonly type: "SendCustomNotification";
  readonly at: number;
  readonly target: Target;
  readonly author: string;
  readonly comment: string;
  /** Pass the suppression by downtime, acknowledgement, flapping and the period. */
  readonly force: boolean;
}

/**
 * Turns run-time switches of the targeted objects off or on (src/model/object-flags.ts): each
 * switch present in `flags` is set, an absent one is left as it is; at least one is present.
 */
export interface SetObjectFlagsCommand {
  readonly type: "SetObjectFlags";
  readonly at: number;
  readonly target: Target;
  readonly flags: ObjectFlagsChange;
  readonly author: string;
}

/**
 * Runs the targeted objects' active checks at `runAt` (at once when absent: `at`), one extra run
 * each, after which every object keeps its grid (docs/scheduling.md, "Check now"). An object with a
 * passive check is refused; a selector reschedules the active objects it matches and skips the
 * passive ones. `force` runs the check even where its active checks are switched off.
 */
export interface RescheduleCheckCommand {
  readonly type: "RescheduleCheck";
  readonly at: number;
  readonly target: Target;
  /** Ms since the epoch; absent: `at` (now). */
  readonly runAt?: number;
  readonly force: boolean;
  readonly author: string;
}

/**
 * Swaps the running configuration (start-up, SIGHUP, the ApplyConfig RPC). Unchanged objects keep
 * their state, removed ones are dropped, new ones start PENDING.
 */
export interface ApplyConfigCommand {
  readonly type: "ApplyConfig";
  readonly at: number;
  readonly config: Config;
  /**
   * A digest that identifies the document (e.g. sha256 of the CUE source). Absent: the engine hashes
   * the typed config itself.
   */
  readonly digest?: string;
}

/**
 * Lets time pass: fires every engine timer due at or before `at` (downtime start/end, passive
 * freshness). The writer schedules it for `engine.nextWakeup()`. Every other command also fires due
 * timers first, so a late tick changes nothing.
 */
export interface TickCommand {
  readonly type: "Tick";
  readonly at: number;
}

/**
 * Appends events that a consumer of the log decided (the notifier's decisions, a sink's drops) to
 * the log verbatim, after any engine timers due at `at`. The engine's state does not change; the
 * events reach the projection's history and every consumer like the engine's own.
 */
export interface RecordEventsCommand {
  readonly type: "RecordEvents";
  readonly at: number;
  readonly events: readonly RecordedEvent[];
}

/** Everything the engine applies, discriminated by `type`. */
export type Command =
  | ProcessCheckResultCommand
  | AcknowledgeProblemCommand
  | RemoveAcknowledgementCommand
  | ScheduleDowntimeCommand
  | DeleteDowntimeCommand
  | AddCommentCommand
  | DeleteCommentCommand
  | SendCustomNotificationCommand
  | SetObjectFlagsCommand
  | RescheduleCheckCommand
  | ApplyConfigCommand
  | TickCommand
  | RecordEventsCommand;

export type CommandType = Command["type"];
