import type { CheckTarget } from "../../checks/check.js";
import type { CheckType, Config } from "../../model/config.js";
import { objectKey } from "../../model/object-ref.js";

/** The shortest interval the scheduler honours; shorter (or zero) intervals are raised to it. */
export const MIN_INTERVAL_MS = 1_000;

/** One actively checked object as the scheduler sees it after a config is applied. */
export interface PlannedCheck {
  /** `host` or `host!service`. */
  readonly key: string;
  readonly host: string;
  readonly service?: string;
  readonly type: CheckType;
  readonly target: CheckTarget;
  readonly checkIntervalMs: number;
  readonly retryIntervalMs: number;
  readonly timeoutMs: number;
  /**
   * The check's effective definition as a canonical string: equal fingerprints mean a reload changes
   * nothing about how or when this check runs.
   */
  readonly fingerprint: string;
}

/**
 * Every active check in a config: each host's own check and each service's, except `passive` ones
 * (those wait for results; freshness is not the scheduler's job).
 */
export function planChecks(config: Config): PlannedCheck[] {
  const out: PlannedCheck[] = [];
  for (const host of config.hosts.values()) {
    if (host.check.type !== "passive") {
      out.push(
        plan(objectKey({ host: host.name }), host.name, undefined, { probe: host.check, host, config }),
      );
    }
    for (const service of host.services.values()) {
      if (service.check.type === "passive") continue;
      out.push(
        plan(objectKey({ host: host.name, service: service.name }), host.name, service.name, {
          probe: service.check,
          host,
          service,
          config,
        }),
      );
    }
  }
  return out;
}

function plan(key: string, host: string, service: string | undefined, target: CheckTarget): PlannedCheck {
  const probe = target.probe;
  const planned: PlannedCheck = {
    key,
    host,
    type: probe.type,
    target,
    checkIntervalMs: Math.max(MIN_INTERVAL_MS, probe.checkIntervalMs),
    retryIntervalMs: Math.max(MIN_INTERVAL_MS, probe.retryIntervalMs),
    timeoutMs: Math.max(1, probe.timeoutMs),
    fingerprint: fingerprintOf(target),
  };
  return service === undefined ? planned : { ...planned, service };
}

/**
 * What a run of the check depends on: the whole check block (probe and schedule), the host address
 * and the vars that macros expand, and for `command` checks the template and the `$USERn$`
 * resources. Labels, notification policies and zones do not change how a check runs, so editing them
 * keeps the check's schedule and does not interrupt a run in flight.
 */
function fingerprintOf(target: CheckTarget): string {
  const probe = target.probe;
  const parts: unknown[] = [probe, target.host.address, target.host.vars, target.service?.vars ?? null];
  if (probe.type === "command") {
    parts.push(target.config.commands.get(probe.command) ?? null, target.config.resources);
  }
  return stableStringify(parts);
}

/** JSON with object keys sorted, so two equal definitions always print the same. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value instanceof Map) {
    return stableStringify(Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), v])));
  }
  const rec = value as Record<string, unknown>;
  const keys = Object.keys(rec)
    .filter((k) => rec[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(rec[k])}`).join(",")}}`;
}
