import type { NotificationKind, NotificationPolicyConfig } from "../model/config.js";
import type { ObjectState, StateType } from "../model/state.js";
import { inPeriod, type NotifyZone, nextPeriodOpen } from "./period.js";

/** Why a notification was not sent (docs/notifications.md, "Suppression"). */
export type SuppressReason =
  | "soft"
  | "downtime"
  | "acknowledged"
  | "unreachable"
  | "flapping"
  | "period"
  | "disabled_kind"
  | "not_notified"
  | "contact_removed"
  | "policy_removed"
  | "superseded"
  | "notifications_disabled";

/** Every reason, for validation and docs. */
export const SUPPRESS_REASONS: readonly SuppressReason[] = [
  "soft",
  "downtime",
  "acknowledged",
  "unreachable",
  "flapping",
  "period",
  "disabled_kind",
  "not_notified",
  "contact_removed",
  "policy_removed",
  "superseded",
  "notifications_disabled",
];

/** What the notifier knows of an object, from the last committed events about it. */
export interface NotifyStatus {
  readonly state: ObjectState;
  readonly stateType: StateType;
  readonly acknowledged: boolean;
  readonly inDowntime: boolean;
  readonly flapping: boolean;
  readonly reachable: boolean;
  /** An operator turned the object's notifications off (SetObjectFlags); absent: on. */
  readonly notificationsDisabled?: boolean;
}

/** Where an open problem stands in its policy's escalation (persisted by the notifier). */
export interface EscalationState {
  /** 0-based index into the policy's levels. */
  readonly level: number;
  /** Contacts told of this problem, each with the 0-based level that told it. */
  readonly told: Readonly<Record<string, number>>;
}

/** The answer of decide(). */
export type Decision =
  | {
      readonly outcome: "notify";
      /** 0-based level. */
      readonly level: number;
      readonly contacts: readonly string[];
    }
  | {
      readonly outcome: "suppress";
      readonly reason: SuppressReason;
      readonly level: number;
      /** For `period`: when the period opens next (a problem is then notified if still open). */
      readonly until?: number;
    };

/** Whether a state is a problem (anything but OK, UP and PENDING). */
export function isProblem(s: ObjectState): boolean {
  return s !== "OK" && s !== "UP" && s !== "PENDING";
}

/** The kinds about an event rather than a problem: told under the period, never held for it. */
export function isEventKind(kind: NotificationKind): boolean {
  return (
    kind === "ACKNOWLEDGEMENT" ||
    kind === "DOWNTIME_START" ||
    kind === "DOWNTIME_END" ||
    kind === "DOWNTIME_REMOVED" ||
    kind === "CUSTOM"
  );
}

/**
 * What the object itself says against notifying it, before the period and the policy's levels: the
 * one place for object-wide suppression. A run-time "notifications disabled" switch (SetObjectFlags)
 * belongs here, beside the downtime, and `force` passes it as it passes the rest.
 */
function objectSuppression(
  kind: NotificationKind,
  status: NotifyStatus,
  force: boolean,
): SuppressReason | undefined {
  if (force) return undefined;
  // Switched off by an operator: nothing of any kind is sent, recoveries included (Icinga 2).
  if (status.notificationsDisabled === true) return "notifications_disabled";
  // DOWNTIME_* are about the downtime itself: the object is (or was) in it by definition.
  const downtimeKind = kind === "DOWNTIME_START" || kind === "DOWNTIME_END" || kind === "DOWNTIME_REMOVED";
  if (status.inDowntime && !downtimeKind) return "downtime";
  if (kind === "PROBLEM" || kind === "STATUS_CHANGE") {
    if (status.stateType === "SOFT") return "soft";
    if (status.acknowledged) return "acknowledged";
    if (!status.reachable) return "unreachable";
    if (status.flapping) return "flapping";
  }
  if (kind === "CUSTOM") {
    if (status.acknowledged) return "acknowledged";
    if (status.flapping) return "flapping";
  }
  return undefined;
}

/**
 * The one decision: for a notification of `kind` about an object with `status` under `policy` at
 * `now`, who is told at which level, or why nobody is. Pure: the notifier, the scenario language and
 * the PreviewNotifications RPC all call this. `escalation` is the open problem's (level 0 and nobody
 * told when there is none).
 *
 * Order of the checks (the first that applies wins): the object's own suppression
 * (`objectSuppression`: notifications switched off by an operator, every kind, recoveries included;
 * a downtime, except for DOWNTIME_*; for PROBLEM and STATUS_CHANGE a SOFT
 * state, an acknowledgement, an unreachable object, flapping; for CUSTOM an acknowledgement and
 * flapping); then the period; then the level's `disabled_kinds`. RECOVERY and ACKNOWLEDGEMENT go only
 * to the contacts told of the problem, each under the level that told it; DOWNTIME_* and CUSTOM to
 * the contacts of the problem's current level (the first level without a problem). `force` (a forced
 * CUSTOM) passes the object's suppression and the period, not `disabled_kinds`.
 */
export function decide(
  kind: NotificationKind,
  status: NotifyStatus,
  policy: NotificationPolicyConfig,
  escalation: EscalationState,
  now: number,
  zone: NotifyZone,
  force = false,
): Decision {
  const level = Math.min(escalation.level, policy.levels.length - 1);
  const suppress = (reason: SuppressReason, until?: number): Decision =>
    until === undefined
      ? { outcome: "suppress", reason, level }
      : { outcome: "suppress", reason, level, until };
  const objectReason = objectSuppression(kind, status, force);
  if (objectReason !== undefined) return suppress(objectReason);
  if (!force && !inPeriod(policy.period, now, zone))
    return suppress("period", nextPeriodOpen(policy.period, now, zone));
  switch (kind) {
    case "PROBLEM":
    case "STATUS_CHANGE":
    case "FLAPPING_START":
    case "FLAPPING_STOP":
    case "DOWNTIME_START":
    case "DOWNTIME_END":
    case "DOWNTIME_REMOVED":
    case "CUSTOM": {
      const l = policy.levels[level];
      if (l === undefined || l.disabledKinds.includes(kind)) return suppress("disabled_kind");
      return { outcome: "notify", level, contacts: l.contacts };
    }
    case "RECOVERY":
    case "ACKNOWLEDGEMENT": {
      const told = Object.entries(escalation.told);
      if (told.length === 0) return suppress("not_notified");
      const contacts: string[] = [];
      for (const [c, lv] of told) {
        const l = policy.levels[Math.min(lv, policy.levels.length - 1)];
        if (l !== undefined && !l.disabledKinds.includes(kind)) contacts.push(c);
      }
      if (contacts.length === 0) return suppress("disabled_kind");
      return { outcome: "notify", level, contacts: contacts.sort() };
    }
    default: {
      const never: never = kind;
      return never;
    }
  }
}
