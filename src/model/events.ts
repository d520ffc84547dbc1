/**
 * The event log's events. Every event is plain JSON (no Maps, no Dates; times are ms since the
 * epoch), carries a `type` discriminator and `at`, and — when it is about one object — that object's
 * `key` (`host` or `host!service`) with `host` and `service` spelled out. A projection can be rebuilt
 * from the log alone, and sinks with `input: events` forward events unchanged.
 *
 * The state engine emits the engine events; the notifier and the sinks append theirs (declared here
 * so that the log has one closed set).
 */
import type { CheckResult } from "./check-result.js";
import type { CommandType } from "./commands.js";
import type { NotificationKind } from "./config.js";
import type { DisabledFields, ObjectFlags } from "./object-flags.js";
import type { ObjectState, StateType } from "./state.js";

/** Fields every event about one object has. */
export interface ObjectEventBase {
  /** Ms since the epoch: when the engine applied the command (or the timer was due). */
  readonly at: number;
  /** `host` or `host!service` (src/model/object-ref.ts). */
  readonly key: string;
  readonly host: string;
  /** Absent for a host. */
  readonly service?: string;
}

/** An acknowledgement as it stands on an object. */
export interface AcknowledgementInfo {
  readonly author: string;
  readonly comment: string;
  readonly sticky: boolean;
  readonly notify: boolean;
  /** Ms since the epoch. */
  readonly setAt: number;
}

/**
 * An object's complete status after a result: what ListStatus shows (with the result's output and
 * perfdata, which travel in the same event).
 */
export interface ObjectStatus extends DisabledFields {
  readonly state: ObjectState;
  readonly stateType: StateType;
  /** 1..maxAttempts; counts consecutive problem results while SOFT, stays at maxAttempts when HARD. */
  readonly attempt: number;
  readonly maxAttempts: number;
  /** When the last result was checked (result.checkedAt); 0 before the first. */
  readonly lastCheck: number;
  /** When `state` last changed (soft or hard); 0 before the first result. */
  readonly lastStateChange: number;
  /** The last hard state; PENDING before the first hard state. */
  readonly lastHardState: ObjectState;
  /** When the hard state last changed; 0 before the first hard state. */
  readonly lastHardStateChange: number;
  readonly flapping: boolean;
  /** The flap detector's value f, times 100. */
  readonly flapPercent: number;
  /** null when not acknowledged. */
  readonly acknowledgement: AcknowledgementInfo | null;
  /** Whether at least one downtime on the object is active. */
  readonly inDowntime: boolean;
  /**
   * False when a problem is explained by something above it: a host is UNREACHABLE, or a service's
   * host is not UP. Notifiers suppress problem notifications for unreachable objects.
   */
  readonly reachable: boolean;
}

/** A result was applied. One per ProcessCheckResult (and per synthesized stale result). */
export interface CheckResultProcessedEvent extends ObjectEventBase {
  readonly type: "CheckResultProcessed";
  /** The result as submitted (host/service repeated in it). */
  readonly result: CheckResult;
  readonly status: ObjectStatus;
}

/**
 * The state or the state type changed. `stateType` is the type of this transition: a recovery from
 * a SOFT problem is a SOFT state change even though OK is then held as HARD (docs/states.md).
 */
export interface StateChangeEvent extends ObjectEventBase {
  readonly type: "StateChange";
  readonly from: ObjectState;
  readonly to: ObjectState;
  readonly stateType: StateType;
  readonly attempt: number;
  readonly maxAttempts: number;
  /** True when the hard state changed: the transitions that notify (PROBLEM, RECOVERY). */
  readonly hardChange: boolean;
  /** The hard state before this transition (PENDING if none): a RECOVERY is from a hard problem. */
  readonly fromHardState: ObjectState;
  readonly reachable: boolean;
  readonly output: string;
}

export interface FlappingStartEvent extends ObjectEventBase {
  readonly type: "FlappingStart";
  readonly percent: number;
  readonly highThreshold: number;
}

export interface FlappingStopEvent extends ObjectEventBase {
  readonly type: "FlappingStop";
  readonly percent: number;
  readonly lowThreshold: number;
  /** `threshold`: f fell below low_threshold; `disabled`: a reload turned flap detection off. */
  readonly reason: "threshold" | "disabled";
  /**
   * With `notify_on_flap_stop` true and the object in a HARD problem state after this result: the
   * problem notification is due right after this FlappingStop, on the same result.
   */
  readonly notifyProblem: boolean;
}

export interface AcknowledgementSetEvent extends ObjectEventBase, AcknowledgementInfo {
  readonly type: "AcknowledgementSet";
  /** The problem state that was acknowledged. */
  readonly state: ObjectState;
}

export interface AcknowledgementRemovedEvent extends ObjectEventBase {
  readonly type: "AcknowledgementRemoved";
  /** `recovery`: OK/UP; `state-change`: a non-sticky ack saw another problem state; `command`. */
  readonly reason: "recovery" | "state-change" | "command";
}

/** A downtime was scheduled (one event per object it covers); `at` is when it was created. */
export interface DowntimeScheduledEvent extends ObjectEventBase {
  readonly type: "DowntimeScheduled";
  readonly id: string;
  readonly start: number;
  readonly end: number;
  readonly author: string;
  readonly comment: string;
  /** A flexible downtime (absent in events logged before flexible downtimes: fixed). */
  readonly flexible?: boolean;
  /** With `flexible`: how long it lasts once started (ms). */
  readonly durationMs?: number;
}

export interface DowntimeStartedEvent extends ObjectEventBase {
  readonly type: "DowntimeStarted";
  readonly id: string;
  /** When it ends: a fixed downtime's end, a flexible one's start plus its duration. */
  readonly end: number;
}

/** A flexible downtime's window closed without a problem on its objects: it expired unused. */
export interface DowntimeExpiredEvent extends ObjectEventBase {
  readonly type: "DowntimeExpired";
  readonly id: string;
}

export interface DowntimeEndedEvent extends ObjectEventBase {
  readonly type: "DowntimeEnded";
  readonly id: string;
}

export interface DowntimeDeletedEvent extends ObjectEventBase {
  readonly type: "DowntimeDeleted";
  readonly id: string;
  /** `command`: DeleteDowntime; `object-removed`: a reload removed the object. */
  readonly reason: "command" | "object-removed";
  readonly wasActive: boolean;
}

/** An operator's comment (AddComment) on an object. */
export interface CommentAddedEvent extends ObjectEventBase {
  readonly type: "CommentAdded";
  readonly id: string;
  readonly author: string;
  readonly comment: string;
}

export interface CommentDeletedEvent extends ObjectEventBase {
  readonly type: "CommentDeleted";
  readonly id: string;
  /** `command`: DeleteComment; `object-removed`: a reload removed the object. */
  readonly reason: "command" | "object-removed";
}

/**
 * SendCustomNotification reached an object: the notifier sends a CUSTOM notification to its policy's
 * contacts (docs/notifications.md, "Custom notifications").
 */
export interface CustomNotificationEvent extends ObjectEventBase {
  readonly type: "CustomNotification";
  readonly author: string;
  readonly comment: string;
  /** Sent even when a downtime, an acknowledgement, flapping or the period would suppress it. */
  readonly force: boolean;
}

/**
 * An operator turned run-time switches of an object off or on (SetObjectFlags): `flags` are the
 * object's switches after the change (true: on). One per object whose switches changed.
 */
export interface ObjectFlagsChangedEvent extends ObjectEventBase {
  readonly type: "ObjectFlagsChanged";
  readonly flags: ObjectFlags;
  readonly author: string;
}

/**
 * An object's active check was rescheduled (RescheduleCheck): the scheduler runs it at `runAt`, one
 * extra run, then keeps the object's grid. Pending until a result checked at or after `runAt`.
 */
export interface CheckRescheduledEvent extends ObjectEventBase {
  readonly type: "CheckRescheduled";
  /** Ms since the epoch. */
  readonly runAt: number;
  readonly force: boolean;
  readonly author: string;
}

/** A reload added an object; it starts PENDING. */
export interface ObjectAddedEvent extends ObjectEventBase {
  readonly type: "ObjectAdded";
}

/** A reload removed an object, with its acknowledgement and downtimes. */
export interface ObjectRemovedEvent extends ObjectEventBase {
  readonly type: "ObjectRemoved";
}

/** A configuration was applied; the per-object changes precede it as ObjectAdded/ObjectRemoved. */
export interface ConfigAppliedEvent {
  readonly type: "ConfigApplied";
  readonly at: number;
  readonly digest: string;
  readonly hosts: number;
  readonly services: number;
  readonly added: number;
  readonly removed: number;
}

/** A command that could not apply (unknown object, no problem to acknowledge, bad window, ...). */
export interface CommandRejectedEvent {
  readonly type: "CommandRejected";
  readonly at: number;
  readonly command: CommandType;
  /** The object concerned, when there is one. */
  readonly key?: string;
  readonly reason: string;
}

/** The notifier sent a notification (declared for the notifier; the engine never emits it). */
export interface NotificationSentEvent extends ObjectEventBase {
  readonly type: "NotificationSent";
  readonly kind: NotificationKind;
  readonly policy: string;
  readonly level: number;
  readonly contact: string;
  /** The notification id (also its Idempotency-Key); repeats of one notification share it. */
  readonly id?: string;
  /** The attempt that delivered it (1 for the first). */
  readonly attempt?: number;
}

/** A notification failed (declared for the notifier). */
export interface NotificationFailedEvent extends ObjectEventBase {
  readonly type: "NotificationFailed";
  readonly kind: NotificationKind;
  readonly policy: string;
  readonly level: number;
  readonly contact: string;
  readonly error: string;
  readonly retryable: boolean;
  /** The notification id. */
  readonly id?: string;
  /** Which attempt failed (1 for the first). */
  readonly attempt?: number;
  /** With `retryable`: when the next attempt is due (ms since the epoch). */
  readonly retryAt?: number;
}

/**
 * The notifier decided not to send (docs/notifications.md, "Suppression"): `reason` is one of
 * soft, downtime, acknowledged, unreachable, flapping, period, disabled_kind, not_notified,
 * contact_removed, policy_removed, superseded, notifications_disabled. `contact` and `id` are set when one pending send was dropped.
 */
export interface NotificationSuppressedEvent extends ObjectEventBase {
  readonly type: "NotificationSuppressed";
  readonly kind: NotificationKind;
  readonly policy: string;
  readonly level: number;
  readonly reason: string;
  readonly contact?: string;
  readonly id?: string;
  /** For `period`: when the period opens next (ms since the epoch). */
  readonly until?: number;
}

/**
 * A sink delivers again after failing (recorded on the recovery, never per batch); `cursor` is the
 * last log sequence number of the batch that went through.
 */
export interface SinkFlushedEvent {
  readonly type: "SinkFlushed";
  readonly at: number;
  readonly sink: string;
  readonly cursor: number;
  readonly count: number;
}

/** A sink's backend started failing; the sink retries with backoff (recorded once per outage). */
export interface SinkFailedEvent {
  readonly type: "SinkFailed";
  readonly at: number;
  readonly sink: string;
  readonly error: string;
  readonly retryable: boolean;
}

/**
 * A backend refused records of a sink for good (a 4xx other than 429): they are not delivered and
 * the sink moved past them. `fromSeq`..`toSeq` are the log's events the refused records came from.
 * When the backend refused a batch for some of its records, the sink split the batch to find them:
 * one event per refused record, naming it in `record`, and the rest of the batch delivered.
 */
export interface SinkDroppedEvent {
  readonly type: "SinkDropped";
  readonly at: number;
  readonly sink: string;
  readonly reason: "rejected";
  readonly count: number;
  readonly fromSeq: number;
  readonly toSeq: number;
  readonly error: string;
  readonly record?: DroppedRecord;
}

/**
 * The one record a SinkDropped event is about: a perfdata point (its object, perfdata label and
 * check time) or an event of the log (its type, and its object when it has one).
 */
export interface DroppedRecord {
  readonly host?: string;
  readonly service?: string;
  readonly perfdata?: string;
  readonly time?: number;
  readonly event?: string;
}

/** What the state engine emits. */
export type EngineEvent =
  | CheckResultProcessedEvent
  | StateChangeEvent
  | FlappingStartEvent
  | FlappingStopEvent
  | AcknowledgementSetEvent
  | AcknowledgementRemovedEvent
  | DowntimeScheduledEvent
  | DowntimeStartedEvent
  | DowntimeEndedEvent
  | DowntimeDeletedEvent
  | DowntimeExpiredEvent
  | CommentAddedEvent
  | CommentDeletedEvent
  | CustomNotificationEvent
  | ObjectFlagsChangedEvent
  | CheckRescheduledEvent
  | ObjectAddedEvent
  | ObjectRemovedEvent
  | ConfigAppliedEvent
  | CommandRejectedEvent;

/** What consumers of the log (the notifier, the sinks) record through the RecordEvents command. */
export type RecordedEvent =
  | NotificationSentEvent
  | NotificationFailedEvent
  | NotificationSuppressedEvent
  | SinkFlushedEvent
  | SinkFailedEvent
  | SinkDroppedEvent;

/** The types a RecordEvents command may carry (checked when it is submitted). */
export const RECORDED_EVENT_TYPES: ReadonlySet<string> = new Set<RecordedEvent["type"]>([
  "NotificationSent",
  "NotificationFailed",
  "NotificationSuppressed",
  "SinkFlushed",
  "SinkFailed",
  "SinkDropped",
]);

/** Everything the event log holds. */
export type LookoutEvent = EngineEvent | RecordedEvent;

export type EventType = LookoutEvent["type"];
