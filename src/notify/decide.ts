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

/**
 * The one decision: for a notification of `kind` about an object with `status` under `policy` at
 * `now`, who is told at which level, or why nobody is. Pure: the notifier, the scenario language and
 * the PreviewNotifications RPC all call this. `escalation` is the open problem's (level 0 and nobody
 * told when there is none).
 *
 * Order of the checks (the first that applies wins): notifications switched off; downtime; then for PROBLEM and STATUS_CHANGE a
 * SOFT state, an acknowledgement, an unreachable object, flapping; then the period; then the level's
 * `disabled_kinds`. RECOVERY goes only to the contacts told of the problem, each under the level that
 * told it.
 */
export function decide(
  kind: NotificationKind,
  status: NotifyStatus,
  policy: NotificationPolicyConfig,
  escalation: EscalationState,
  now: number,
  zone: NotifyZone,
): Decision {
  const level = Math.min(escalation.level, policy.levels.length - 1);
  const suppress = (reason: SuppressReason, until?: number): Decision =>
    until === undefined
      ? { outcome: "suppress", reason, level }
      : { outcome: "suppress", reason, level, until };
  // Switched off by an operator: nothing of any kind is sent, recoveries included (Icinga 2).
  if (status.notificationsDisabled === true) return suppress("notifications_disabled");
  if (status.inDowntime) return suppress("downtime");
  const problemKind = kind === "PROBLEM" || kind === "STATUS_CHANGE";
  if (problemKind) {
    if (status.stateType === "SOFT") return suppress("soft");
    if (status.acknowledged) return suppress("acknowledged");
    if (!status.reachable) return suppress("unreachable");
    if (status.flapping) return suppress("flapping");
  }
  if (!inPeriod(policy.period, now, zone))
    return suppress("period", nextPeriodOpen(policy.period, now, zone));
  switch (kind) {
    case "PROBLEM":
    case "STATUS_CHANGE":
    case "FLAPPING_START":
    case "FLAPPING_STOP": {
      const l = policy.levels[level];
      if (l === undefined || l.disabledKinds.includes(kind)) return suppress("disabled_kind");
      return { outcome: "notify", level, contacts: l.contacts };
    }
    case "RECOVERY": {
      const told = Object.entries(escalation.told);
      if (told.length === 0) return suppress("not_notified");
      const contacts: string[] = [];
      for (const [c, lv] of told) {
        const l = policy.levels[Math.min(lv, policy.levels.length - 1)];
        if (l !== undefined && !l.disabledKinds.includes("RECOVERY")) contacts.push(c);
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
