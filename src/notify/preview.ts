import type { NotificationKind } from "../model/config.js";
import type { ObjectState } from "../model/state.js";
import { decide, type EscalationState, isProblem, type NotifyStatus, type SuppressReason } from "./decide.js";
import { policyNameOf, type Tracker } from "./tracker.js";

/** A routing question: these objects, optionally in a hypothetical HARD state, at a time. */
export interface PreviewQuery {
  readonly keys: readonly string[];
  /** A hypothetical HARD state; absent: the object's current state. */
  readonly state?: ObjectState;
  /** When (ms since the epoch); the caller's clock when absent. */
  readonly at: number;
}

/** The answer for one object. */
export interface Preview {
  readonly key: string;
  /** "" when the object has no notification policy. */
  readonly policy: string;
  /** The kind the question is about; undefined when there is nothing to notify (no policy, or OK with no open problem). */
  readonly kind?: NotificationKind;
  /** 1-based level that would notify. */
  readonly level: number;
  /** Who would be told (empty when suppressed). */
  readonly contacts: readonly string[];
  readonly suppressed?: SuppressReason | "no_policy";
  /** For `period`: when the period opens next. */
  readonly until?: number;
  /** Contacts told of the open problem so far. */
  readonly told: readonly string[];
  /** The open problem's next renotification (0: none due). */
  readonly nextNotificationAt: number;
  /** When the next level takes over (0: never). */
  readonly escalatesAt: number;
}

/**
 * Answers who would be told, running the notifier's own decide() over its own tracker state (a
 * hypothetical state overrides the object's for the question only; nothing changes).
 */
export function previewNotifications(tracker: Tracker, q: PreviewQuery): Preview[] {
  return q.keys.map((key) => previewOne(tracker, key, q));
}

function previewOne(tracker: Tracker, key: string, q: PreviewQuery): Preview {
  const config = tracker.config;
  const policyName = policyNameOf(config, key);
  const policy = policyName === "" ? undefined : config.notifications.get(policyName);
  const o = tracker.get(key);
  const p = o?.problem;
  const told = p === undefined ? [] : Object.keys(p.told).sort();
  const none = {
    key,
    policy: policyName,
    level: 0,
    contacts: [],
    told,
    nextNotificationAt: 0,
    escalatesAt: 0,
  };
  if (policy === undefined) return { ...none, suppressed: "no_policy" };
  const current: NotifyStatus = o?.status ?? {
    state: "PENDING",
    stateType: "HARD",
    acknowledged: false,
    inDowntime: false,
    flapping: false,
    reachable: true,
  };
  const state = q.state ?? current.state;
  let kind: NotificationKind | undefined;
  if (isProblem(state)) {
    kind =
      p !== undefined && q.state !== undefined && q.state !== current.state ? "STATUS_CHANGE" : "PROBLEM";
  } else if (p !== undefined) {
    kind = "RECOVERY";
  } else if (q.state === undefined) {
    // Nothing open: answer for a problem that would start at `at`.
    kind = "PROBLEM";
  }
  const status: NotifyStatus =
    q.state === undefined ? { ...current, stateType: "HARD" } : { ...current, state, stateType: "HARD" };
  const esc: EscalationState = p ?? { level: 0, told: {} };
  const lv = policy.levels[Math.min(esc.level, policy.levels.length - 1)];
  let escalatesAt = 0;
  if (
    p !== undefined &&
    p.nextDueAt > 0 &&
    lv !== undefined &&
    lv.threshold > 0 &&
    p.level + 1 < policy.levels.length
  ) {
    const remaining = Math.max(1, lv.threshold - p.sentAtLevel);
    escalatesAt = p.nextDueAt + remaining * lv.renotifyIntervalMs;
  }
  const timing = { nextNotificationAt: p?.nextDueAt ?? 0, escalatesAt };
  if (kind === undefined) return { ...none, ...timing, level: esc.level + 1 };
  const d = decide(kind, status, policy, esc, q.at, tracker.zone);
  if (d.outcome === "suppress") {
    return {
      key,
      policy: policyName,
      kind,
      level: d.level + 1,
      contacts: [],
      suppressed: d.reason,
      ...(d.until === undefined ? {} : { until: d.until }),
      told,
      ...timing,
    };
  }
  return { key, policy: policyName, kind, level: d.level + 1, contacts: d.contacts, told, ...timing };
}
