import {
  type CheckConfig,
  type CheckType,
  type Config,
  DEFAULT_FLAP,
  DEFAULT_SCHEDULE,
  EMPTY_CONFIG,
  type FlapConfig,
  type HostConfig,
  type ProbeConfig,
  type ServiceConfig,
  type StaleStatus,
} from "../../model/config.js";
import { keyValue, parseDuration } from "./tokens.js";

/**
 * Builds a typed Config from the indented lines of a scenario's `config` block:
 *
 *     host web address=10.0.0.1 check=tcp max_attempts=3 parents=core,edge label.team=web
 *     service web/http check=http max_attempts=3 flap=off
 *     service web/push check=passive freshness=5m stale=CRITICAL
 *
 * Options: check, max_attempts, check_interval, retry_interval, flap=on|off, alpha, high, low,
 * notify_on_flap_stop=true|false, freshness, stale, label.<key>=<value>; hosts also address and
 * parents. Services follow the host they belong to.
 */
export function buildConfig(lines: readonly { text: string[]; line: number }[]): Config {
  const hosts = new Map<string, { host: HostConfig; services: Map<string, ServiceConfig> }>();
  for (const { text, line } of lines) {
    const [kind, name, ...opts] = text;
    const fail = (msg: string): never => {
      throw new Error(`line ${line}: ${msg}`);
    };
    if (name === undefined) fail(`${kind} needs a name`);
    const o = new Map<string, string>();
    const labels: Record<string, string> = {};
    for (const w of opts) {
      const kv = keyValue(w) ?? fail(`option "${w}" is not key=value`);
      if (kv[0].startsWith("label.")) labels[kv[0].slice(6)] = kv[1];
      else o.set(kv[0], kv[1]);
    }
    if (kind === "host") {
      const n = name as string;
      const services = new Map<string, ServiceConfig>();
      const host: HostConfig = {
        name: n,
        address: o.get("address") ?? "127.0.0.1",
        parents: o.get("parents")?.split(",") ?? [],
        vars: {},
        check: checkOf(o, "tcp", fail),
        services,
        notification: "",
        zone: "default",
        labels,
      };
      o.delete("address");
      o.delete("parents");
      hosts.set(n, { host, services });
    } else if (kind === "service") {
      const [h, s] = (name as string).split("/");
      if (h === undefined || s === undefined) fail(`service name must be host/service, not "${name}"`);
      const entry = hosts.get(h as string) ?? fail(`service ${name}: host ${h} is not defined above it`);
      entry.services.set(s as string, {
        host: h as string,
        name: s as string,
        vars: {},
        check: checkOf(o, "http", fail),
        notification: "",
        zone: "default",
        labels,
      });
    } else {
      fail(`config lines are "host ..." or "service ...", not "${kind}"`);
    }
    if (o.size > 0) fail(`unknown option ${[...o.keys()].join(", ")}`);
  }
  return { ...EMPTY_CONFIG, hosts: new Map([...hosts].map(([k, v]) => [k, v.host])) };
}

function take(o: Map<string, string>, key: string): string | undefined {
  const v = o.get(key);
  o.delete(key);
  return v;
}

function checkOf(o: Map<string, string>, defaultType: CheckType, fail: (msg: string) => never): CheckConfig {
  const type = take(o, "check") ?? defaultType;
  let probe: ProbeConfig;
  switch (type) {
    case "tcp":
      probe = { type, address: "127.0.0.1:80" };
      break;
    case "http":
      probe = { type, url: "http://127.0.0.1/" };
      break;
    case "icmp":
      probe = { type, host: "127.0.0.1" };
      break;
    case "passive": {
      const stale = take(o, "stale") ?? "UNKNOWN";
      if (stale !== "UNKNOWN" && stale !== "WARNING" && stale !== "CRITICAL")
        fail(`bad stale status ${stale}`);
      probe = {
        type,
        freshnessThresholdMs: parseDuration(take(o, "freshness") ?? fail("passive needs freshness=")),
        staleStatus: stale as StaleStatus,
      };
      break;
    }
    default:
      return fail(`scenario configs support check=tcp|http|icmp|passive, not ${type}`);
  }
  const num = (key: string, dflt: number): number => {
    const v = take(o, key);
    if (v === undefined) return dflt;
    const n = Number(v);
    if (!Number.isFinite(n)) fail(`${key}=${v} is not a number`);
    return n;
  };
  const dur = (key: string, dflt: number): number => {
    const v = take(o, key);
    return v === undefined ? dflt : parseDuration(v);
  };
  const flapSwitch = take(o, "flap") ?? "on";
  if (flapSwitch !== "on" && flapSwitch !== "off") fail(`flap=${flapSwitch}: want on or off`);
  const nofs = take(o, "notify_on_flap_stop") ?? "false";
  const flap: FlapConfig = {
    enabled: flapSwitch === "on",
    alpha: num("alpha", DEFAULT_FLAP.alpha),
    highThreshold: num("high", DEFAULT_FLAP.highThreshold),
    lowThreshold: num("low", DEFAULT_FLAP.lowThreshold),
    notifyOnFlapStop: nofs === "true",
  };
  return {
    ...probe,
    checkIntervalMs: dur("check_interval", DEFAULT_SCHEDULE.checkIntervalMs),
    retryIntervalMs: dur("retry_interval", DEFAULT_SCHEDULE.retryIntervalMs),
    timeoutMs: DEFAULT_SCHEDULE.timeoutMs,
    maxAttempts: num("max_attempts", DEFAULT_SCHEDULE.maxAttempts),
    flap,
  };
}
