import {
  type CheckConfig,
  type Config,
  EMPTY_CONFIG,
  type FlapConfig,
  type HostConfig,
  type Labels,
  type ServiceConfig,
} from "../model/config.js";

const NO_VARS = Object.freeze({});
const NO_PARENTS: readonly string[] = Object.freeze([]);

/**
 * The part of a configuration the state engine reads, as a Config: every host and service with its
 * name, parents, labels (selectors) and check schedule — type, max attempts, flap detection, and for
 * passive checks the freshness threshold and stale status. Everything else is blank: probe targets
 * (addresses, URLs, credentials), vars, zones, notification policies, contacts, views, sinks, commands.
 * Equal checks, flap settings and label sets are one shared object each.
 *
 * This is what the store's writer thread holds and logs instead of the whole document: a config
 * crosses to that thread by structured clone, which keeps shared objects shared, so at 100,000
 * services it costs a fifth of a copy of the original. The engine must give the same events for a
 * config and for engineConfig(config); the scenario runner replays every scenario both ways.
 */
export function engineConfig(config: Config): Config {
  const checks = new Map<string, CheckConfig>();
  const flaps = new Map<string, FlapConfig>();
  const labelSets = new Map<string, Labels>();
  const names = new Map<string, string>();

  const name = (s: string): string => {
    const hit = names.get(s);
    if (hit !== undefined) return hit;
    names.set(s, s);
    return s;
  };
  const labels = (l: Labels): Labels => {
    const k = JSON.stringify(l);
    const hit = labelSets.get(k);
    if (hit !== undefined) return hit;
    labelSets.set(k, l);
    return l;
  };
  const check = (c: CheckConfig): CheckConfig => {
    const fk = `${c.flap.enabled}|${c.flap.alpha}|${c.flap.highThreshold}|${c.flap.lowThreshold}|${c.flap.notifyOnFlapStop}`;
    let flap = flaps.get(fk);
    if (flap === undefined) {
      flap = { ...c.flap };
      flaps.set(fk, flap);
    }
    const passive = c.type === "passive" ? `|${c.freshnessThresholdMs}|${c.staleStatus}` : "";
    const k = `${c.type}|${c.checkIntervalMs}|${c.retryIntervalMs}|${c.timeoutMs}|${c.maxAttempts}|${fk}${passive}`;
    const hit = checks.get(k);
    if (hit !== undefined) return hit;
    const schedule = {
      checkIntervalMs: c.checkIntervalMs,
      retryIntervalMs: c.retryIntervalMs,
      timeoutMs: c.timeoutMs,
      maxAttempts: c.maxAttempts,
      flap,
    };
    // The probe's own fields (address, url, ...) are left out: the engine never reads them.
    const lean = (
      c.type === "passive"
        ? {
            type: c.type,
            freshnessThresholdMs: c.freshnessThresholdMs,
            staleStatus: c.staleStatus,
            ...schedule,
          }
        : { type: c.type, ...schedule }
    ) as CheckConfig;
    checks.set(k, lean);
    return lean;
  };

  const hosts = new Map<string, HostConfig>();
  for (const [hostKey, h] of config.hosts) {
    const services = new Map<string, ServiceConfig>();
    for (const [serviceKey, s] of h.services) {
      services.set(name(serviceKey), {
        host: h.name,
        name: name(s.name),
        vars: NO_VARS,
        check: check(s.check),
        notification: "",
        zone: "",
        labels: labels(s.labels),
      });
    }
    hosts.set(hostKey, {
      name: h.name,
      address: "",
      parents: h.parents.length === 0 ? NO_PARENTS : h.parents,
      vars: NO_VARS,
      check: check(h.check),
      services,
      notification: "",
      zone: "",
      labels: labels(h.labels),
    });
  }
  return { ...EMPTY_CONFIG, hosts };
}
