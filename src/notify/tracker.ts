import type { Config, NotificationKind, NotificationPolicyConfig } from "../model/config.js";
import type { LookoutEvent } from "../model/events.js";
import type { ObjectState } from "../model/state.js";
import { type Decision, decide, isProblem, type NotifyStatus, type SuppressReason } from "./decide.js";
import type { NotifyZone } from "./period.js";

/**
 * An open problem's notification state: where it stands in the escalation, who was told, when the
 * next renotification is due and whether a notification is owed (held back by the period or by
 * flapping). Plain JSON: the notifier persists it per object.
 */
export interface ProblemRecord {
  /** Log sequence number of the event that opened the problem: the stem of its notification ids. */
  openedSeq: number;
  openedAt: number;
  /** 0-based escalation level. */
  level: number;
  /** Problem notifications sent at this level. */
  sentAtLevel: number;
  /** Problem notifications sent for this problem (PROBLEM, renotifications, STATUS_CHANGE). */
  number: number;
  /** Contact → 0-based level that told it. */
  told: Record<string, number>;
  /** When the next renotification (or the owed notification) is due; 0 for none. */
  nextDueAt: number;
  /** `period`: held back until the period opens; `flapping`: until flapping stops. */
  owed: "" | "period" | "flapping";
}

/** What the notifier keeps per object with a policy. */
export interface TrackedObject {
  status: NotifyStatus;
  output: string;
  /** Ids of active downtimes seen ("?" for one known only from a status). */
  downtimes: string[];
  /** Author and comment of the object's downtimes, by id, for DOWNTIME_* (absent: none known). */
  downtimeNotes?: Record<string, [author: string, comment: string]>;
  problem?: ProblemRecord;
}

/** Fields every intent has. */
interface IntentBase {
  readonly key: string;
  readonly kind: NotificationKind;
  readonly policy: string;
  /** 1-based escalation level. */
  readonly level: number;
  /** When it was decided (the event's `at`, or the due time of a timer). */
  readonly at: number;
  readonly state: ObjectState;
  readonly output: string;
  /** ACKNOWLEDGEMENT, CUSTOM, DOWNTIME_*: who acted and what they said. */
  readonly author?: string;
  readonly comment?: string;
}

/** A notification to deliver to one contact. */
export interface SendIntent extends IntentBase {
  readonly type: "send";
  /** Stable across restarts: the Idempotency-Key. */
  readonly id: string;
  readonly contact: string;
  /** The problem's notification number ($NOTIFICATIONNUMBER$); 0 for non-problem kinds. */
  readonly number: number;
  /**
   * PROBLEM, STATUS_CHANGE and RECOVERY: the sequence number that opened the problem. A newer send
   * of the same problem to the same contact supersedes an older one still undelivered.
   */
  readonly problem?: number;
}

/** A notification not sent, with the reason. */
export interface SuppressIntent extends IntentBase {
  readonly type: "suppressed";
  readonly reason: SuppressReason;
  /** The contact concerned, when one is (contact_removed). */
  readonly contact?: string;
  /** For `period`: when the period opens next. */
  readonly until?: number;
}

export type Intent = SendIntent | SuppressIntent;

/** The input of the tracker: an event and its log sequence number. */
export interface TrackedEvent {
  readonly seq: number;
  readonly event: LookoutEvent;
}

/** The policy name of an object in a config ("" for none or an unknown object). */
export function policyNameOf(config: Config, key: string): string {
  const bang = key.indexOf("!");
  const host = config.hosts.get(bang < 0 ? key : key.slice(0, bang));
  if (host === undefined) return "";
  if (bang < 0) return host.notification;
  return host.services.get(key.slice(bang + 1))?.notification ?? "";
}

const NOMINAL: NotifyStatus = {
  state: "PENDING",
  stateType: "HARD",
  acknowledged: false,
  inDowntime: false,
  flapping: false,
  reachable: true,
};

/** The notifier's pure core; see createTracker. */
export interface Tracker {
  /** Applies one committed event; returns the decisions it caused, in order. */
  observe(e: TrackedEvent): Intent[];
  /** Runs the timers due at or before `now` (renotifications, owed notifications), in time order. */
  due(now: number): Intent[];
  /** The earliest timer, if any. */
  nextDue(): number | undefined;
  /** Switches to a new config: open problems keep their place, clamped to the new levels. */
  applyConfig(config: Config): Intent[];
  get(key: string): TrackedObject | undefined;
  /** Sets an object's record as loaded from durable state. */
  load(key: string, o: TrackedObject): void;
  /** The objects changed since the last call (undefined: forget the object). */
  takeDirty(): [string, TrackedObject | undefined][];
  readonly config: Config;
  readonly zone: NotifyZone;
  size(): number;
  /** Every tracked object's key. */
  keys(): IterableIterator<string>;
}

/**
 * The notification state machine over committed events (docs/notifications.md). Pure and
 * clock-free: every time it uses comes from an event or from `due(now)`, so a scenario, a restart
 * and the live notifier compute the same decisions and the same notification ids.
 */
export function createTracker(config: Config, zone: NotifyZone): Tracker {
  let cfg = config;
  const objects = new Map<string, TrackedObject>();
  const dirty = new Set<string>();
  let minDue = Number.POSITIVE_INFINITY;

  const policyOf = (key: string): { name: string; policy: NotificationPolicyConfig } | undefined => {
    const name = policyNameOf(cfg, key);
    const policy = name === "" ? undefined : cfg.notifications.get(name);
    return policy === undefined ? undefined : { name, policy };
  };
  const touch = (key: string) => dirty.add(key);
  const setDue = (p: ProblemRecord, at: number) => {
    p.nextDueAt = at;
    if (at > 0 && at < minDue) minDue = at;
  };

  const base = (
    key: string,
    o: TrackedObject,
    kind: NotificationKind,
    policy: string,
    level: number,
    at: number,
  ) => ({
    key,
    kind,
    policy,
    level: level + 1,
    at,
    state: o.status.state,
    output: o.output,
  });

  /** Turns a decision for a problem kind into intents and advances the problem's escalation. */
  const problemNotification = (
    key: string,
    o: TrackedObject,
    p: ProblemRecord,
    kind: "PROBLEM" | "STATUS_CHANGE",
    at: number,
    idStem: string,
  ): Intent[] => {
    const pol = policyOf(key);
    if (pol === undefined) return [];
    const d: Decision = decide(kind, o.status, pol.policy, p, at, zone);
    const levels = pol.policy.levels;
    const lv = levels[d.level];
    const interval = lv?.renotifyIntervalMs ?? 0;
    touch(key);
    if (d.outcome === "suppress") {
      switch (d.reason) {
        case "period":
          p.owed = "period";
          setDue(p, d.until ?? 0);
          break;
        case "flapping":
          p.owed = "flapping";
          setDue(p, 0);
          break;
        default:
          setDue(p, interval > 0 ? at + interval : 0);
      }
      return [
        {
          type: "suppressed",
          ...base(key, o, kind, pol.name, d.level, at),
          reason: d.reason,
          ...(d.until === undefined ? {} : { until: d.until }),
        },
      ];
    }
    p.number++;
    p.sentAtLevel++;
    p.owed = "";
    const out: Intent[] = [];
    for (const c of d.contacts) {
      p.told[c] = d.level;
      out.push({
        type: "send",
        ...base(key, o, kind, pol.name, d.level, at),
        id: `${idStem}.${c}`,
        contact: c,
        number: p.number,
        problem: p.openedSeq,
      });
    }
    setDue(p, interval > 0 ? at + interval : 0);
    const threshold = lv?.threshold ?? 0;
    if (threshold > 0 && p.sentAtLevel >= threshold && d.level + 1 < levels.length) {
      p.level = d.level + 1;
      p.sentAtLevel = 0;
    }
    return out;
  };

  /**
   * A non-problem kind (RECOVERY, FLAPPING_*, ACKNOWLEDGEMENT, DOWNTIME_*, CUSTOM): decided once and
   * sent, no escalation, never held for the period (docs/notifications.md). Its id is the event's
   * sequence number, the kind and the contact.
   */
  const plainNotification = (
    key: string,
    o: TrackedObject,
    kind: Exclude<NotificationKind, "PROBLEM" | "STATUS_CHANGE">,
    seq: number,
    at: number,
    said?: { readonly author: string; readonly comment: string },
    force = false,
  ): Intent[] => {
    const pol = policyOf(key);
    if (pol === undefined) return [];
    const esc = o.problem ?? { level: 0, told: {} };
    const d = decide(kind, o.status, pol.policy, esc, at, zone, force);
    const b = { ...base(key, o, kind, pol.name, d.level, at), ...(said ?? {}) };
    if (d.outcome === "suppress") {
      // Not held for the period: by the time it opens, the news is stale (no `until`).
      return [{ type: "suppressed", ...b, reason: d.reason }];
    }
    const problem = kind === "RECOVERY" ? o.problem?.openedSeq : undefined;
    return d.contacts.map((c) => ({
      type: "send" as const,
      ...b,
      id: `${seq}.${kind}.${c}`,
      contact: c,
      number: 0,
      ...(problem === undefined ? {} : { problem }),
    }));
  };
  /** The author and comment a downtime was scheduled with, as far as the tracker saw it. */
  const downtimeSaid = (o: TrackedObject, id: string) => {
    const n = o.downtimeNotes?.[id];
    return { author: n?.[0] ?? "", comment: n?.[1] ?? "" };
  };
  const forgetDowntime = (o: TrackedObject, id: string) => {
    if (o.downtimeNotes === undefined || !(id in o.downtimeNotes)) return;
    const { [id]: _gone, ...rest } = o.downtimeNotes;
    if (Object.keys(rest).length === 0) delete o.downtimeNotes;
    else o.downtimeNotes = rest;
  };

  const objectOf = (key: string): TrackedObject => {
    let o = objects.get(key);
    if (o === undefined) {
      o = { status: NOMINAL, output: "", downtimes: [] };
      objects.set(key, o);
    }
    return o;
  };
  const setStatus = (key: string, o: TrackedObject, patch: Partial<NotifyStatus>) => {
    o.status = { ...o.status, ...patch };
    touch(key);
  };

  return {
    get config() {
      return cfg;
    },
    zone,
    size: () => objects.size,
    keys: () => objects.keys(),
    get: (key) => objects.get(key),
    load(key, o) {
      objects.set(key, o);
      if (o.problem !== undefined && o.problem.nextDueAt > 0 && o.problem.nextDueAt < minDue)
        minDue = o.problem.nextDueAt;
    },
    takeDirty() {
      const out: [string, TrackedObject | undefined][] = [];
      for (const k of dirty) out.push([k, objects.get(k)]);
      dirty.clear();
      return out;
    },
    nextDue: () => (minDue === Number.POSITIVE_INFINITY ? undefined : minDue),

    observe({ seq, event: e }) {
      if (!("key" in e) || e.key === undefined) return [];
      const key = e.key;
      if (policyOf(key) === undefined) {
        if (objects.delete(key)) touch(key);
        return [];
      }
      const o = objectOf(key);
      switch (e.type) {
        case "CheckResultProcessed": {
          const s = e.status;
          const wasFlapping = o.status.flapping;
          if (!s.inDowntime) o.downtimes = [];
          else if (o.downtimes.length === 0) o.downtimes = ["?"];
          o.output = e.result.output;
          setStatus(key, o, {
            state: s.state,
            stateType: s.stateType,
            acknowledged: s.acknowledgement !== null,
            inDowntime: s.inDowntime,
            flapping: s.flapping,
            reachable: s.reachable,
            notificationsDisabled: s.notificationsDisabled === true,
          });
          // notify_on_flap_stop false: the problem held back by flapping is sent on the next result
          // (not on the one that stopped flapping: that result's FlappingStop follows this event).
          const p = o.problem;
          if (
            p?.owed === "flapping" &&
            !wasFlapping &&
            !s.flapping &&
            s.stateType === "HARD" &&
            isProblem(s.state)
          ) {
            return problemNotification(key, o, p, "PROBLEM", e.at, `${p.openedSeq}.${p.number + 1}`);
          }
          return [];
        }
        case "StateChange": {
          setStatus(key, o, { state: e.to, reachable: e.reachable });
          o.output = e.output;
          if (!e.hardChange) {
            if (e.stateType === "SOFT" && isProblem(e.to)) {
              const pol = policyOf(key);
              if (pol === undefined) return [];
              const level = o.problem?.level ?? 0;
              return [
                { type: "suppressed", ...base(key, o, "PROBLEM", pol.name, level, e.at), reason: "soft" },
              ];
            }
            return [];
          }
          setStatus(key, o, { stateType: "HARD" });
          if (isProblem(e.to)) {
            const kind = isProblem(e.fromHardState) && o.problem !== undefined ? "STATUS_CHANGE" : "PROBLEM";
            let p = o.problem;
            if (p === undefined || kind === "PROBLEM") {
              p = {
                openedSeq: seq,
                openedAt: e.at,
                level: 0,
                sentAtLevel: 0,
                number: 0,
                told: {},
                nextDueAt: 0,
                owed: "",
              };
              o.problem = p;
            }
            return problemNotification(key, o, p, kind, e.at, `${p.openedSeq}.${p.number + 1}`);
          }
          if (isProblem(e.fromHardState)) {
            const out = plainNotification(key, o, "RECOVERY", seq, e.at);
            delete o.problem;
            touch(key);
            return out;
          }
          return [];
        }
        case "FlappingStart":
          setStatus(key, o, { flapping: true });
          return plainNotification(key, o, "FLAPPING_START", seq, e.at);
        case "FlappingStop": {
          setStatus(key, o, { flapping: false });
          const out = plainNotification(key, o, "FLAPPING_STOP", seq, e.at);
          const p = o.problem;
          if (p !== undefined && o.status.stateType === "HARD" && isProblem(o.status.state)) {
            if (e.notifyProblem) {
              out.push(...problemNotification(key, o, p, "PROBLEM", e.at, `${p.openedSeq}.${p.number + 1}`));
            } else {
              p.owed = "flapping";
              setDue(p, 0);
            }
          }
          return out;
        }
        case "AcknowledgementSet":
          setStatus(key, o, { acknowledged: true });
          // notify false: nobody is told, and nothing is recorded (the operator asked for silence).
          if (!e.notify) return [];
          return plainNotification(key, o, "ACKNOWLEDGEMENT", seq, e.at, {
            author: e.author,
            comment: e.comment,
          });
        case "AcknowledgementRemoved":
          setStatus(key, o, { acknowledged: false });
          return [];
        case "DowntimeScheduled":
          o.downtimeNotes = { ...o.downtimeNotes, [e.id]: [e.author, e.comment] };
          touch(key);
          return [];
        case "DowntimeStarted":
          o.downtimes = [...o.downtimes.filter((d) => d !== e.id), e.id];
          setStatus(key, o, { inDowntime: true });
          return plainNotification(key, o, "DOWNTIME_START", seq, e.at, downtimeSaid(o, e.id));
        case "DowntimeEnded":
        case "DowntimeDeleted": {
          o.downtimes = o.downtimes.filter((d) => d !== e.id && d !== "?");
          setStatus(key, o, { inDowntime: o.downtimes.length > 0 });
          const said = downtimeSaid(o, e.id);
          forgetDowntime(o, e.id);
          if (e.type === "DowntimeEnded") return plainNotification(key, o, "DOWNTIME_END", seq, e.at, said);
          // Deleted before it began: nobody was told it started, so nobody is told it ended.
          if (e.reason === "command" && e.wasActive)
            return plainNotification(key, o, "DOWNTIME_REMOVED", seq, e.at, said);
          return [];
        }
        case "CustomNotification":
          return plainNotification(
            key,
            o,
            "CUSTOM",
            seq,
            e.at,
            { author: e.author, comment: e.comment },
            e.force,
          );
        case "ObjectFlagsChanged":
          setStatus(key, o, { notificationsDisabled: !e.flags.notifications });
          return [];
        case "ObjectRemoved":
          objects.delete(key);
          touch(key);
          return [];
        default:
          return [];
      }
    },

    due(now) {
      if (now < minDue) return [];
      const due: [number, string, TrackedObject, ProblemRecord][] = [];
      let next = Number.POSITIVE_INFINITY;
      for (const [key, o] of objects) {
        const p = o.problem;
        if (p === undefined || p.nextDueAt === 0) continue;
        if (p.nextDueAt <= now) due.push([p.nextDueAt, key, o, p]);
        else if (p.nextDueAt < next) next = p.nextDueAt;
      }
      minDue = next;
      due.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : 1));
      const out: Intent[] = [];
      for (const [at, key, o, p] of due) {
        if (o.status.stateType !== "HARD" || !isProblem(o.status.state)) {
          setDue(p, 0);
          continue;
        }
        out.push(...problemNotification(key, o, p, "PROBLEM", at, `${p.openedSeq}.${p.number + 1}`));
      }
      return out;
    },

    applyConfig(next) {
      cfg = next;
      const out: Intent[] = [];
      for (const [key, o] of [...objects]) {
        const pol = policyOf(key);
        if (pol === undefined) {
          objects.delete(key);
          touch(key);
          continue;
        }
        const p = o.problem;
        if (p === undefined) continue;
        const levels = pol.policy.levels.length;
        if (p.level >= levels) {
          p.level = levels - 1;
          touch(key);
        }
        for (const c of Object.keys(p.told)) {
          if (!next.contacts.has(c)) {
            delete p.told[c];
            touch(key);
          }
        }
        if (p.nextDueAt > 0 && p.nextDueAt < minDue) minDue = p.nextDueAt;
      }
      return out;
    },
  };
}
