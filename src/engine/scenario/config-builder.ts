import {
  type CheckConfig,
  type CheckType,
  type Config,
  type ContactConfig,
  DEFAULT_FLAP,
  DEFAULT_SCHEDULE,
  EMPTY_CONFIG,
  type EscalationLevelConfig,
  type FlapConfig,
  type HostConfig,
  NOTIFICATION_KINDS,
  type NotificationKind,
  type NotificationPolicyConfig,
  type ProbeConfig,
  type ServiceConfig,
  type StaleStatus,
  WEEKDAYS,
  type WindowConfig,
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
 * notify_on_flap_stop=true|false, freshness, stale, notification=<policy>, label.<key>=<value>;
 * hosts also address and parents. Services follow the host they belong to.
 *
 * Notifications (docs/notifications.md):
 *
 *     contact ops type=email address=ops@example.com
 *     contact hook type=webhook
 *     policy standard period=monday@09:00-17:00,tuesday@00:00-24:00
 *     level standard contacts=ops,hook threshold=2 renotify=1h disabled=RECOVERY,FLAPPING_START
 *
 * `level` lines add the policy's levels in order; renotify defaults to 1h, threshold to 0.
 */
export function buildConfig(lines: readonly { text: string[]; line: number }[]): Config {
  const hosts = new Map<string, { host: HostConfig; services: Map<string, ServiceConfig> }>();
  const contacts = new Map<string, ContactConfig>();
  const policies = new Map<string, { period: WindowConfig[]; levels: EscalationLevelConfig[] }>();
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
    if (kind === "contact") {
      contacts.set(name as string, contactOf(name as string, o, labels, fail));
      continue;
    }
    if (kind === "policy") {
      const period = (take(o, "period") ?? "")
        .split(",")
        .filter((w) => w !== "")
        .map((w) => windowOf(w, fail));
      policies.set(name as string, { period, levels: [] });
      if (o.size > 0) fail(`unknown option ${[...o.keys()].join(", ")}`);
      continue;
    }
    if (kind === "level") {
      const p = policies.get(name as string) ?? fail(`level: policy ${name} is not defined above it`);
      const disabled = (take(o, "disabled") ?? "").split(",").filter((w) => w !== "");
      for (const k of disabled)
        if (!(NOTIFICATION_KINDS as readonly string[]).includes(k)) fail(`bad kind ${k}`);
      p.levels.push({
        contacts: (take(o, "contacts") ?? fail("level needs contacts=")).split(","),
        threshold: Number(take(o, "threshold") ?? "0"),
        renotifyIntervalMs: parseDuration(take(o, "renotify") ?? "1h"),
        disabledKinds: disabled as NotificationKind[],
      });
      if (o.size > 0) fail(`unknown option ${[...o.keys()].join(", ")}`);
      continue;
    }
    const notification = take(o, "notification") ?? "";
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
        notification,
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
        notification,
        zone: "default",
        labels,
      });
    } else {
      fail(`config lines are "host", "service", "contact", "policy" or "level", not "${kind}"`);
    }
    if (o.size > 0) fail(`unknown option ${[...o.keys()].join(", ")}`);
  }
  const notifications = new Map<string, NotificationPolicyConfig>(
    [...policies].map(([name, p]) => [name, { name, period: p.period, levels: p.levels }]),
  );
  return {
    ...EMPTY_CONFIG,
    hosts: new Map([...hosts].map(([k, v]) => [k, v.host])),
    contacts,
    notifications,
  };
}

/** `contact NAME type=webhook|email|command|telegram [address=…] [url=…] [chat_id=…]`. */
function contactOf(
  name: string,
  o: Map<string, string>,
  labels: Record<string, string>,
  fail: (msg: string) => never,
): ContactConfig {
  const type = take(o, "type") ?? "webhook";
  let c: ContactConfig;
  switch (type) {
    case "email":
      c = { name, labels, type, address: take(o, "address") ?? `${name}@example.com` };
      break;
    case "webhook":
      c = { name, labels, type, url: take(o, "url") ?? "http://127.0.0.1/hook" };
      break;
    case "command":
      c = {
        name,
        labels,
        type,
        command: take(o, "command") ?? "notify",
        args: [],
        address: take(o, "address") ?? "",
      };
      break;
    case "telegram":
      c = { name, labels, type, chatId: take(o, "chat_id") ?? "1" };
      break;
    default:
      return fail(`contact type ${type}: want email, webhook, command or telegram`);
  }
  if (o.size > 0) fail(`unknown option ${[...o.keys()].join(", ")}`);
  return c;
}

/** `monday@09:00-17:00`. */
function windowOf(w: string, fail: (msg: string) => never): WindowConfig {
  const m =
    /^([a-z]+)@(\d\d):(\d\d)-(\d\d):(\d\d)$/.exec(w) ?? fail(`bad window ${w} (want monday@09:00-17:00)`);
  const weekday = m[1] as WindowConfig["weekday"];
  if (!WEEKDAYS.includes(weekday)) fail(`bad weekday ${m[1]}`);
  return {
    weekday,
    start: `${m[2]}:${m[3]}`,
    end: `${m[4]}:${m[5]}`,
    startMinute: Number(m[2]) * 60 + Number(m[3]),
    endMinute: Number(m[4]) * 60 + Number(m[5]),
  };
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
