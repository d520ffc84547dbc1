import type { AuditEntry } from "../audit/index.js";
import type { Logger } from "../model/logger.js";
import type { ResultMessage } from "./job.js";
import type { ZoneMetrics } from "./metrics.js";
import { resultSubject } from "./names.js";

/**
 * Why the leader refused a result from the results stream (the `reason` label of
 * `lookout_zone_results_refused_total`):
 * - `malformed`: the message is not a result;
 * - `zone_mismatch`: the result names a zone whose subject is not the one it arrived on;
 * - `unknown_object`: its object is not in the config in force;
 * - `wrong_zone`: its object belongs to another zone than the subject's;
 * - `local_zone`: its object's zone runs on the server, which publishes no job for it;
 * - `not_active`: its object's check is not active (a passive check takes no worker's result).
 */
export type ResultRefusal =
  | "malformed"
  | "zone_mismatch"
  | "unknown_object"
  | "wrong_zone"
  | "local_zone"
  | "not_active";

/** Where the config in force puts an object: its effective zone, and whether its check is active. */
export interface ObjectPlacement {
  readonly zone: string;
  readonly active: boolean;
}

/**
 * Whether a result that arrived on `subject` may be applied: undefined when it may, else why not.
 * Only the subject says which zone sent it (NATS permissions confine a zone's workers to their
 * subject, docs/zones.md); the payload's zone, worker and object are the sender's word.
 */
export function refusalOf(
  subject: string,
  r: ResultMessage,
  object: ObjectPlacement | undefined,
  isLocal: (zone: string) => boolean,
): ResultRefusal | undefined {
  if (typeof r.zone !== "string" || resultSubject(r.zone) !== subject) return "zone_mismatch";
  if (object === undefined) return "unknown_object";
  if (resultSubject(object.zone) !== subject) return "wrong_zone";
  if (isLocal(object.zone)) return "local_zone";
  if (!object.active) return "not_active";
  return undefined;
}

/** What the leader knows of one refused message. */
export interface RefusedResult {
  readonly subject: string;
  /** The `zone` label: the configured zone the subject belongs to, or `other`. */
  readonly zone: string;
  readonly reason: ResultRefusal;
  readonly seq: number;
  /** Absent for a message that is not a result. */
  readonly result?: ResultMessage;
  /** Where the config puts the result's object, when it is there. */
  readonly object?: ObjectPlacement;
}

/** Counts, logs and audits refused results. */
export interface RefusalReporter {
  refuse(r: RefusedResult): void;
}

/** How long the log stays quiet about a worker after saying it sent a refused result. */
export const REFUSAL_LOG_WINDOW_MS = 60_000;
/** The most audit records of refused results per zone (subject) and window; the rest are counted. */
export const REFUSAL_AUDITS_PER_WINDOW = 60;
/** Workers (or zones) remembered per window; beyond it they share one entry. */
const MAX_KEYS = 1_000;
/** The longest text of the sender's taken into a log line or an audit record. */
const MAX_FIELD = 256;

function clip(s: unknown): string {
  const t = typeof s === "string" ? s : "";
  return t.length <= MAX_FIELD ? t : `${t.slice(0, MAX_FIELD)}…(cut, ${t.length} characters)`;
}

/**
 * At most one pass per key and window on `now`'s clock (and `limit` passes for the audit); what
 * it held back is said with the next pass. Bounded: past `MAX_KEYS` keys in a window, new keys
 * share one entry.
 */
function createWindowLimiter(windowMs: number, limit: number) {
  const seen = new Map<string, { start: number; passed: number; held: number }>();
  return (key: string, now: number): { pass: boolean; held: number } => {
    let k = key;
    if (!seen.has(k) && seen.size >= MAX_KEYS) {
      for (const [old, e] of seen) if (now - e.start >= windowMs) seen.delete(old);
      if (seen.size >= MAX_KEYS) k = "\u0000overflow";
    }
    let e = seen.get(k);
    if (e === undefined || now - e.start >= windowMs) {
      const held = e?.held ?? 0;
      e = { start: now, passed: 1, held: 0 };
      seen.set(k, e);
      return { pass: true, held };
    }
    if (e.passed < limit) {
      e.passed++;
      const held = e.held;
      e.held = 0;
      return { pass: true, held };
    }
    e.held++;
    return { pass: false, held: 0 };
  };
}

/**
 * Every refused result is counted (`lookout_zone_results_refused_total{zone,reason}`); the log
 * says so once per worker per minute (with how many it held back), and the audit log records up
 * to `REFUSAL_AUDITS_PER_WINDOW` per zone per minute (a forging worker cannot flood the audit
 * log's 1,000,000 records away): source `zone`, principal `worker:<name>` as the result names it,
 * the subject as the call, the object and the reason. Time is `now`'s (an injected clock).
 */
export function createRefusalReporter(o: {
  readonly metrics: ZoneMetrics;
  readonly logger: Logger;
  readonly audit?: { record(entry: AuditEntry): void };
  readonly now: () => number;
}): RefusalReporter {
  const logLimit = createWindowLimiter(REFUSAL_LOG_WINDOW_MS, 1);
  const auditLimit = createWindowLimiter(REFUSAL_LOG_WINDOW_MS, REFUSAL_AUDITS_PER_WINDOW);
  return {
    refuse(x) {
      o.metrics.refused(x.zone, x.reason);
      const now = o.now();
      const worker = clip(x.result?.worker);
      const host = clip(x.result?.host);
      const service = x.result?.service === undefined ? undefined : clip(x.result.service);
      const why = explain(x);
      const audited = o.audit === undefined ? { pass: false, held: 0 } : auditLimit(x.subject, now);
      if (audited.pass && o.audit !== undefined) {
        o.audit.record({
          at: now,
          source: "zone",
          principal: { name: `worker:${worker}` },
          peer: "",
          rpc: x.subject,
          commandJson: JSON.stringify({
            Type: "ZoneResult",
            Seq: x.seq,
            Zone: clip(x.result?.zone),
            Worker: worker,
            Host: host,
            ...(service === undefined ? {} : { Service: service }),
            ...(audited.held > 0 ? { NotAudited: audited.held } : {}),
          }),
          outcome: "rejected",
          reason: why,
        });
      }
      const logged = logLimit(`${x.subject}\u0000${worker}`, now);
      if (logged.pass) {
        o.logger.warn("refused a result from a zone's worker", {
          subject: x.subject,
          worker,
          host,
          ...(service === undefined ? {} : { service }),
          reason: x.reason,
          detail: why,
          seq: x.seq,
          ...(logged.held > 0 ? { alsoRefusedSinceLastSaid: logged.held } : {}),
        });
      }
    },
  };
}

/** The audit record's reason: the closed reason and what it means for this result. */
function explain(x: RefusedResult): string {
  const zone = x.zone;
  switch (x.reason) {
    case "malformed":
      return "malformed: not a result message";
    case "zone_mismatch":
      return `zone_mismatch: the result names zone ${JSON.stringify(clip(x.result?.zone))}, it arrived on ${x.subject}`;
    case "unknown_object":
      return "unknown_object: no such object in the config in force";
    case "wrong_zone":
      return `wrong_zone: the object is in zone ${JSON.stringify(x.object?.zone ?? "")}, not ${JSON.stringify(zone)}`;
    case "local_zone":
      return `local_zone: zone ${JSON.stringify(x.object?.zone ?? "")} runs on the server`;
    case "not_active":
      return "not_active: the object's check is not active (passive)";
    default: {
      const never: never = x.reason;
      return String(never);
    }
  }
}
