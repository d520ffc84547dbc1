import {
  HTTP_METHODS,
  NOTIFICATION_KINDS,
  SNMP_AUTH_PROTOS,
  SNMP_PRIV_PROTOS,
  WEEKDAYS,
} from "../model/config.js";
import { isObj } from "./decode-reader.js";
import type { DocPath } from "./locate.js";

/**
 * What each field of the schema accepts, in the words of docs/configuration.md. The schema enforces
 * the constraints; these sentences only explain them when the engine's own message says little
 * ("conflicting values 3 and 0" for a value that missed both a default and a bound).
 */
const DURATION = 'a duration such as "90s" or "1h30m"';
const NON_EMPTY = "a non-empty string";
const HOST_PORT = 'a non-empty "host:port" (e.g. "127.0.0.1:8080", "[::1]:53")';
const quoteAll = (xs: readonly string[]) => xs.map((x) => JSON.stringify(x)).join(", ");

const SCHEDULE: Readonly<Record<string, string>> = {
  check_interval: DURATION,
  retry_interval: DURATION,
  timeout: DURATION,
  max_attempts: "an int >= 1 (default 3)",
  flap: "a struct of flap settings",
};
const FLAP: Readonly<Record<string, string>> = {
  enabled: "a bool",
  alpha: "a number > 0 and <= 1 (default 0.1)",
  high_threshold: "a number >= 0 and <= 1 (default 0.3)",
  low_threshold: "a number >= 0 and <= high_threshold (default 0.15)",
  notify_on_flap_stop: "a bool",
};
const CHECK: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  tcp: { address: HOST_PORT },
  http: {
    url: NON_EMPTY,
    method: `one of ${quoteAll(HTTP_METHODS)} (default "GET")`,
    headers: "a struct of strings",
    body: "a string",
    expect_status: 'a non-empty list of status codes (100–599) or ranges such as "200-299"',
    expect_body: NON_EMPTY,
    expect_body_regex: `${NON_EMPTY} (an RE2 pattern)`,
    follow_redirects: "an int from 0 to 20 (default 0)",
    tls_verify: "a bool (default true)",
    ca_file: `${NON_EMPTY} (the path of a PEM bundle)`,
    sni: NON_EMPTY,
    warn: DURATION,
    crit: DURATION,
  },
  dns: { server: HOST_PORT, name: NON_EMPTY },
  icmp: { host: NON_EMPTY },
  tls: {
    address: NON_EMPTY,
    warn_within: DURATION,
    crit_within: DURATION,
    verify: "a bool (default true)",
    ca_file: `${NON_EMPTY} (the path of a PEM bundle)`,
    sni: NON_EMPTY,
  },
  snmp: {
    address: NON_EMPTY,
    oid: NON_EMPTY,
    community: `${NON_EMPTY} (SNMP v2c; exactly one of "community" and "user")`,
    user: `${NON_EMPTY} (SNMP v3; exactly one of "community" and "user")`,
    auth_proto: `one of ${quoteAll(SNMP_AUTH_PROTOS)}`,
    priv_proto: `one of ${quoteAll(SNMP_PRIV_PROTOS)}`,
    auth_pass: "a string",
    priv_pass: "a string",
    warn: 'a Nagios range, or "" when "expect" is set',
    crit: 'a Nagios range, or "" when "expect" is set',
    expect: 'a string; "" when "warn" or "crit" is set',
    label: "a string",
    uom: "a string",
  },
  legacy: { path: NON_EMPTY, args: "a list of strings" },
  wasm: { module: NON_EMPTY, args: "a list of strings" },
  command: { command: "the non-empty name of a command", args: "a list of strings" },
  passive: { freshness_threshold: DURATION, stale_status: '"UNKNOWN", "WARNING" or "CRITICAL"' },
};
const HOST: Readonly<Record<string, string>> = {
  address: NON_EMPTY,
  parents: "a list of host names",
  notification: 'the name of a notification policy, or ""',
  zone: `${NON_EMPTY} (default "default")`,
  vars: "a struct of strings",
  labels: "a struct of label values",
  services: "a struct of services",
};
const SERVICE: Readonly<Record<string, string>> = {
  notification: HOST.notification as string,
  zone: 'a string ("" inherits the host\'s zone)',
  vars: "a struct of strings",
  labels: "a struct of label values",
};
const CONTACT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  email: { address: NON_EMPTY },
  webhook: { url: NON_EMPTY },
  command: { command: "the non-empty name of a command", args: "a list of strings", address: "a string" },
  telegram: { chat_id: NON_EMPTY },
};
const SINK_COMMON: Readonly<Record<string, string>> = {
  input: '"metrics" or "events"',
  selector: "a label selector string",
  batch_size: "an int > 0 (default 1000)",
  flush_interval: DURATION,
  cursor: "a string",
  headers: "a struct of strings",
};
const SINK: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  clickhouse: { url: NON_EMPTY, table: "a table name matching ^[A-Za-z_][A-Za-z0-9_]*$ (default perfdata)" },
  remote_write: { url: NON_EMPTY },
  archive: {
    url: NON_EMPTY,
    segment_bytes: "an int > 0 (default 67108864)",
    input: '"events" (always, for an archive)',
  },
  http: { url: NON_EMPTY },
  exec: { command: "a non-empty list of strings (the program and its arguments)" },
  file: { path: NON_EMPTY, rotate_bytes: "an int > 0 (default 67108864)" },
  otlp: { url: NON_EMPTY },
};

const ROOT: Readonly<Record<string, string>> = {
  hosts: "a struct of hosts, name: {address: …, check: …}",
  resources: 'a struct of USER<digits>: "value"',
  commands: "a struct of commands, name: {line: …}",
  contacts: "a struct of contacts, name: {type: …}",
  notifications: "a struct of notification policies, name: {levels: […]}",
  views: "a struct of views, name: {selector: …}",
  sinks: "a struct of sinks, name: {type: …}",
};

const typeOf = (v: unknown): string => (isObj(v) && typeof v.type === "string" ? v.type : "");

function get(data: unknown, path: DocPath): unknown {
  let v = data;
  for (const k of path) {
    if (Array.isArray(v)) v = v[Number(k)];
    else if (isObj(v)) v = v[String(k)];
    else return undefined;
  }
  return v;
}

/** The sentence saying what the field at `path` accepts, if the schema has a rule for it. */
export function constraintHint(path: DocPath, raw: unknown): string | undefined {
  const p = path.map(String);
  const last = p[p.length - 1] as string;
  const checkHint = (checkPath: DocPath, rest: readonly string[]): string | undefined => {
    if (rest.length === 2 && rest[0] === "flap") return FLAP[rest[1] as string];
    if (rest.length !== 1) return undefined;
    const f = rest[0] as string;
    return SCHEDULE[f] ?? CHECK[typeOf(get(raw, checkPath))]?.[f];
  };
  if (p.length >= 2 && p[p.length - 2] === "labels")
    return "a label value matching ^[a-zA-Z0-9][a-zA-Z0-9_.:/-]*$";
  if (
    p.length >= 2 &&
    (p[p.length - 2] === "vars" || p[p.length - 2] === "headers" || p[0] === "resources")
  ) {
    return "a string";
  }
  if (p.length === 1) return ROOT[last];
  if (p.length === 2 && p[0] !== "resources") return `a struct (one entry of ${p[0]})`;
  switch (p[0]) {
    case "hosts": {
      if (p.length === 3) return HOST[last];
      if (p.length === 4 && p[2] === "services") return "a struct (one service)";
      if (p.length === 4 && p[2] === "parents") return "a host name (a string)";
      if (p[2] === "check") return checkHint(p.slice(0, 3), p.slice(3));
      if (p[2] === "services" && p.length === 5) return SERVICE[last];
      if (p[2] === "services" && p[4] === "check") return checkHint(p.slice(0, 5), p.slice(5));
      return undefined;
    }
    case "commands":
      return p.length === 3 ? { line: NON_EMPTY, shell: "a bool" }[last] : undefined;
    case "contacts":
      return p.length === 3 ? CONTACT[typeOf(get(raw, p.slice(0, 2)))]?.[last] : undefined;
    case "sinks":
      return p.length === 3
        ? (SINK[typeOf(get(raw, p.slice(0, 2)))]?.[last] ?? SINK_COMMON[last])
        : undefined;
    case "views":
      return p.length === 3
        ? { selector: "a label selector string", description: "a string" }[last]
        : undefined;
    case "notifications": {
      if (p.length === 3) {
        return { period: "a list of windows", levels: "a non-empty list of escalation levels" }[last];
      }
      if (p[2] === "period" && p.length === 5) {
        return {
          weekday: `one of ${quoteAll(WEEKDAYS)}`,
          start: '"HH:MM" from "00:00" to "23:59"',
          end: '"HH:MM" up to "24:00"',
        }[last];
      }
      if (p[2] === "levels" && p.length === 5) {
        return {
          contacts: "a non-empty list of contact names",
          threshold: "an int >= 0 (default 0)",
          renotify_interval: DURATION,
          disabled_kinds: "a list of notification kinds",
        }[last];
      }
      if (p[2] === "levels" && p.length === 6 && p[4] === "disabled_kinds")
        return `one of ${quoteAll(NOTIFICATION_KINDS)}`;
      if (p[2] === "levels" && p.length === 6 && p[4] === "contacts")
        return "a contact name (a non-empty string)";
      return undefined;
    }
    default:
      return undefined;
  }
}

/** The user's value at `path` as CUE would print it, when it is a scalar or a short list. */
export function rawValueText(raw: unknown, path: DocPath): string | undefined {
  const v = get(raw, path);
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  if (v === null) return "null";
  if (Array.isArray(v) && v.length === 0) return "[]";
  if (isObj(v) && Object.keys(v).length === 0) return "{}";
  return undefined;
}
