import type { CheckTarget } from "../../model/checker.js";
import type { CheckType, Config, HostConfig, ServiceConfig } from "../../model/config.js";
import { objectKey } from "../../model/object-ref.js";

/** The shortest interval the scheduler honours; shorter (or zero) intervals are raised to it. */
export const MIN_INTERVAL_MS = 1_000;

/** One actively checked object as the scheduler sees it after a config is applied. */
export interface PlannedCheck {
  /** `host` or `host!service`. */
  readonly key: string;
  readonly host: string;
  /** Absent (undefined) for a host check. */
  readonly service?: string | undefined;
  readonly type: CheckType;
  readonly target: CheckTarget;
  readonly checkIntervalMs: number;
  readonly retryIntervalMs: number;
  readonly timeoutMs: number;
}

/**
 * The host's own check as the scheduler runs it; undefined when it is passive (passive objects wait
 * for results; freshness is not the scheduler's job). schedule-diff.ts plans a config's objects
 * with this and planServiceCheck.
 */
export function planHostCheck(config: Config, host: HostConfig): PlannedCheck | undefined {
  if (host.check.type === "passive") return undefined;
  return plan(objectKey({ host: host.name }), host.name, undefined, { probe: host.check, host, config });
}

/** One service's check as the scheduler runs it; undefined when it is passive. */
export function planServiceCheck(
  config: Config,
  host: HostConfig,
  service: ServiceConfig,
): PlannedCheck | undefined {
  if (service.check.type === "passive") return undefined;
  return plan(objectKey({ host: host.name, service: service.name }), host.name, service.name, {
    probe: service.check,
    host,
    service,
    config,
  });
}

function plan(key: string, host: string, service: string | undefined, target: CheckTarget): PlannedCheck {
  const probe = target.probe;
  return {
    key,
    host,
    service,
    type: probe.type,
    target,
    checkIntervalMs: Math.max(MIN_INTERVAL_MS, probe.checkIntervalMs),
    retryIntervalMs: Math.max(MIN_INTERVAL_MS, probe.retryIntervalMs),
    timeoutMs: Math.max(1, probe.timeoutMs),
  };
}

/**
 * Whether two plans of one object run the same way: the whole check block (probe and schedule),
 * the host address and the vars that macros expand, and for `command` checks the template and the
 * `$USERn$` resources. Labels, notification policies and zones do not change how a check runs, so
 * editing them keeps the check's schedule and does not interrupt a run in flight. Compared
 * structurally, with no strings built: a reload of 100,000 objects costs milliseconds, not seconds.
 */
export function sameDefinition(a: PlannedCheck, b: PlannedCheck): boolean {
  const x = a.target;
  const y = b.target;
  if (!deepEqual(x.probe, y.probe)) return false;
  if (x.host.address !== y.host.address || !deepEqual(x.host.vars, y.host.vars)) return false;
  if (!deepEqual(x.service?.vars, y.service?.vars)) return false;
  if (x.probe.type === "command" && y.probe.type === "command") {
    return (
      deepEqual(x.config.commands.get(x.probe.command), y.config.commands.get(y.probe.command)) &&
      deepEqual(x.config.resources, y.config.resources)
    );
  }
  return true;
}

/** Structural equality of JSON-like values, Maps included; undefined fields count as absent. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map) || !(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !deepEqual(v, b.get(k))) return false;
    return true;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let na = 0;
  for (const k in ra) {
    if (ra[k] === undefined) continue;
    na++;
    if (!deepEqual(ra[k], rb[k])) return false;
  }
  let nb = 0;
  for (const k in rb) if (rb[k] !== undefined) nb++;
  return na === nb;
}
