import type {
  CheckConfig,
  FlapConfig,
  HttpMethod,
  HttpProbe,
  ProbeConfig,
  SnmpAuthProto,
  SnmpPrivProto,
  StaleStatus,
  StatusRange,
} from "../model/config.js";
import {
  DEFAULT_SCHEDULE,
  HTTP_METHODS,
  DEFAULT_FLAP as MODEL_DEFAULT_FLAP,
  SNMP_AUTH_PROTOS,
  SNMP_PRIV_PROTOS,
} from "../model/config.js";
import type { Obj, Reader } from "./decode-reader.js";
import type { Path } from "./path-step.js";
import { step } from "./path-step.js";
import { STATUS_RANGE_PATTERN } from "./patterns.js";
import { unknownTypeMessage } from "./type-checks.js";

/** The defaults, frozen: every check that keeps them shares this one object. */
const DEFAULT_FLAP: FlapConfig = Object.freeze({ ...MODEL_DEFAULT_FLAP });

const STALE_STATUSES: readonly StaleStatus[] = ["UNKNOWN", "WARNING", "CRITICAL"];

/** Decodes the required `check` field of a host or service at `path`. */
export function decodeCheckField(r: Reader, parent: Obj, path: Path): CheckConfig {
  const o = r.obj(parent.check, path, "check", true);
  if (parent.check === undefined)
    return Object.freeze({
      type: "passive",
      freshnessThresholdMs: 0,
      staleStatus: "UNKNOWN",
      ...DEFAULT_SCHEDULE,
      flap: DEFAULT_FLAP,
    });
  return decodeCheck(r, o, step(path, "check"));
}

/** Decodes one `#Check` (a probe branch plus its `#Schedule`) at `path`. */
export function decodeCheck(r: Reader, o: Obj, path: Path): CheckConfig {
  return Object.freeze(
    decodeProbe(
      r,
      o,
      path,
      r.durationMs(o.check_interval, path, "check_interval", "60s"),
      r.durationMs(o.retry_interval, path, "retry_interval", "15s"),
      r.durationMs(o.timeout, path, "timeout", "10s"),
      r.int(o.max_attempts, path, "max_attempts", DEFAULT_SCHEDULE.maxAttempts),
      o.flap === undefined ? DEFAULT_FLAP : decodeFlap(r, r.obj(o.flap, path, "flap"), step(path, "flap")),
    ),
  );
}

function decodeFlap(r: Reader, o: Obj, path: Path): FlapConfig {
  const d = DEFAULT_FLAP;
  const enabled = r.bool(o.enabled, path, "enabled", d.enabled);
  const alpha = r.num(o.alpha, path, "alpha", d.alpha);
  const highThreshold = r.num(o.high_threshold, path, "high_threshold", d.highThreshold);
  const lowThreshold = r.num(o.low_threshold, path, "low_threshold", d.lowThreshold);
  const notifyOnFlapStop = r.bool(o.notify_on_flap_stop, path, "notify_on_flap_stop", d.notifyOnFlapStop);
  // Nearly every check keeps the defaults; they all share one frozen object.
  if (
    enabled === d.enabled &&
    alpha === d.alpha &&
    highThreshold === d.highThreshold &&
    lowThreshold === d.lowThreshold &&
    notifyOnFlapStop === d.notifyOnFlapStop
  ) {
    return d;
  }
  return Object.freeze({ enabled, alpha, highThreshold, lowThreshold, notifyOnFlapStop });
}

function oneOf<T extends string>(r: Reader, o: Obj, key: string, path: Path, allowed: readonly T[]): T {
  const v = r.str(o[key], path, key, allowed[0]);
  if ((allowed as readonly string[]).includes(v)) return v as T;
  r.report(
    step(path, key),
    `${JSON.stringify(v)} is not one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`,
  );
  return allowed[0] as T;
}

/**
 * The check's probe fields followed by the schedule's, built as one literal per type: at 100,000
 * checks, spreading or assigning the schedule onto a probe object cost more than the rest of the
 * check's decoding, and so did an intermediate schedule object.
 */
function decodeProbe(
  r: Reader,
  o: Obj,
  path: Path,
  checkIntervalMs: number,
  retryIntervalMs: number,
  timeoutMs: number,
  maxAttempts: number,
  flap: FlapConfig,
): CheckConfig {
  const type = r.str(o.type, path, "type") as ProbeConfig["type"];
  switch (type) {
    case "tcp": {
      const address = r.required(o.address, path, "address");
      return { type, address, checkIntervalMs, retryIntervalMs, timeoutMs, maxAttempts, flap };
    }
    case "http": {
      if (plainHttp(o)) {
        const url = r.required(o.url, path, "url");
        return { type, url, checkIntervalMs, retryIntervalMs, timeoutMs, maxAttempts, flap };
      }
      return { ...decodeHttp(r, o, path), checkIntervalMs, retryIntervalMs, timeoutMs, maxAttempts, flap };
    }
    case "dns": {
      const server = r.required(o.server, path, "server");
      const name = r.required(o.name, path, "name");
      return { type, server, name, checkIntervalMs, retryIntervalMs, timeoutMs, maxAttempts, flap };
    }
    case "icmp": {
      const host = r.required(o.host, path, "host");
      return { type, host, checkIntervalMs, retryIntervalMs, timeoutMs, maxAttempts, flap };
    }
    case "tls": {
      const address = r.required(o.address, path, "address");
      const warnWithinMs = r.durationMs(o.warn_within, path, "warn_within", "336h");
      const critWithinMs = r.durationMs(o.crit_within, path, "crit_within", "72h");
      const verify = r.bool(o.verify, path, "verify", true);
      const caFile = r.optStr(o.ca_file, path, "ca_file");
      const sni = r.optStr(o.sni, path, "sni");
      return {
        type,
        address,
        warnWithinMs,
        critWithinMs,
        ...(verify ? {} : { verify }),
        ...(caFile === undefined ? {} : { caFile }),
        ...(sni === undefined ? {} : { sni }),
        checkIntervalMs,
        retryIntervalMs,
        timeoutMs,
        maxAttempts,
        flap,
      };
    }
    case "snmp":
      return { ...decodeSnmp(r, o, path), checkIntervalMs, retryIntervalMs, timeoutMs, maxAttempts, flap };
    case "legacy": {
      const p = r.required(o.path, path, "path");
      const args = r.strList(o.args, path, "args");
      return { type, path: p, args, checkIntervalMs, retryIntervalMs, timeoutMs, maxAttempts, flap };
    }
    case "wasm": {
      const module = r.required(o.module, path, "module");
      const args = r.strList(o.args, path, "args");
      return { type, module, args, checkIntervalMs, retryIntervalMs, timeoutMs, maxAttempts, flap };
    }
    case "command": {
      const command = r.required(o.command, path, "command");
      const args = r.strList(o.args, path, "args");
      return { type, command, args, checkIntervalMs, retryIntervalMs, timeoutMs, maxAttempts, flap };
    }
    case "passive": {
      const freshnessThresholdMs = r.durationMs(o.freshness_threshold, path, "freshness_threshold");
      const staleStatus = oneOf(r, o, "stale_status", path, STALE_STATUSES);
      return {
        type,
        freshnessThresholdMs,
        staleStatus,
        checkIntervalMs,
        retryIntervalMs,
        timeoutMs,
        maxAttempts,
        flap,
      };
    }
    default: {
      const _never: never = type;
      r.report(
        step(path, "type"),
        unknownTypeMessage("check", o.type === undefined ? undefined : String(_never), undefined),
      );
      return {
        type: "passive",
        freshnessThresholdMs: 0,
        staleStatus: "UNKNOWN",
        checkIntervalMs,
        retryIntervalMs,
        timeoutMs,
        maxAttempts,
        flap,
      };
    }
  }
}

/** Whether an `http` check sets nothing but its url (and the schema's defaults): most do. */
function plainHttp(o: Obj): boolean {
  for (const k in o) {
    const v = o[k];
    switch (k) {
      case "method":
        if (v !== "GET") return false;
        break;
      case "follow_redirects":
        if (v !== 0) return false;
        break;
      case "tls_verify":
        if (v !== true) return false;
        break;
      case "headers":
      case "body":
      case "expect_status":
      case "expect_body":
      case "expect_body_regex":
      case "ca_file":
      case "sni":
      case "warn":
      case "crit":
        return false;
    }
  }
  return true;
}

/**
 * An `http` probe: the fields a document leaves out stay absent, so a plain `url` check costs no
 * more than it did before the options existed.
 */
function decodeHttp(r: Reader, o: Obj, path: Path): HttpProbe {
  const url = r.required(o.url, path, "url");
  const method = oneOf<HttpMethod>(r, o, "method", path, HTTP_METHODS);
  const followRedirects = r.int(o.follow_redirects, path, "follow_redirects", 0);
  const tlsVerify = r.bool(o.tls_verify, path, "tls_verify", true);
  const headers = o.headers === undefined ? undefined : r.strMap(o.headers, path, "headers");
  const body = r.optStr(o.body, path, "body");
  const expectStatus = o.expect_status === undefined ? undefined : decodeStatus(r, o.expect_status, path);
  const expectBody = r.optStr(o.expect_body, path, "expect_body");
  const expectBodyRegex = r.optStr(o.expect_body_regex, path, "expect_body_regex");
  const caFile = r.optStr(o.ca_file, path, "ca_file");
  const sni = r.optStr(o.sni, path, "sni");
  const warnMs = o.warn === undefined ? undefined : r.durationMs(o.warn, path, "warn");
  const critMs = o.crit === undefined ? undefined : r.durationMs(o.crit, path, "crit");
  return {
    type: "http",
    url,
    ...(method === "GET" ? {} : { method }),
    ...(followRedirects === 0 ? {} : { followRedirects }),
    ...(tlsVerify ? {} : { tlsVerify }),
    ...(headers === undefined ? {} : { headers }),
    ...(body === undefined ? {} : { body }),
    ...(expectStatus === undefined ? {} : { expectStatus }),
    ...(expectBody === undefined ? {} : { expectBody }),
    ...(expectBodyRegex === undefined ? {} : { expectBodyRegex }),
    ...(caFile === undefined ? {} : { caFile }),
    ...(sni === undefined ? {} : { sni }),
    ...(warnMs === undefined ? {} : { warnMs }),
    ...(critMs === undefined ? {} : { critMs }),
  };
}

/** `expect_status`: codes and `lo-hi` ranges, each as an inclusive range. */
function decodeStatus(r: Reader, v: unknown, path: Path): readonly StatusRange[] {
  const at = step(path, "expect_status");
  if (!Array.isArray(v)) {
    r.report(at, "expected a list of status codes or ranges");
    return [];
  }
  const out: StatusRange[] = [];
  v.forEach((x: unknown, i) => {
    let range: [number, number] | undefined;
    if (typeof x === "number" && Number.isInteger(x)) range = [x, x];
    else if (typeof x === "string" && STATUS_RANGE_PATTERN.test(x)) {
      const [lo, hi] = x.split("-").map(Number) as [number, number];
      range = [lo, hi];
    }
    if (range === undefined || range[0] < 100 || range[1] > 599) {
      r.report(step(at, i), 'expected a status code (100–599) or a range such as "200-299"');
    } else if (range[0] > range[1]) {
      r.report(step(at, i), `range ${JSON.stringify(x)} ends before it starts`);
    } else out.push(Object.freeze(range));
  });
  return Object.freeze(out);
}

function decodeSnmp(r: Reader, o: Obj, path: Path): ProbeConfig {
  const community = r.optStr(o.community, path, "community");
  const user = r.optStr(o.user, path, "user");
  if ((community === undefined) === (user === undefined)) {
    r.report(
      path,
      `snmp check needs exactly one of "community" (v2c) or "user" (v3), found ${community === undefined ? "neither" : "both"}`,
    );
  }
  const warn = r.str(o.warn, path, "warn");
  const crit = r.str(o.crit, path, "crit");
  const expect = r.str(o.expect, path, "expect");
  if (expect !== "" && (warn !== "" || crit !== "")) {
    r.report(
      step(path, warn !== "" ? "warn" : "crit"),
      `"expect" is mutually exclusive with "warn" and "crit"`,
    );
  }
  return {
    type: "snmp",
    address: r.required(o.address, path, "address"),
    oid: r.required(o.oid, path, "oid"),
    ...(community === undefined ? {} : { community }),
    ...(user === undefined ? {} : { user }),
    authProto: oneOf<SnmpAuthProto>(r, o, "auth_proto", path, SNMP_AUTH_PROTOS),
    authPass: r.str(o.auth_pass, path, "auth_pass"),
    privProto: oneOf<SnmpPrivProto>(r, o, "priv_proto", path, SNMP_PRIV_PROTOS),
    privPass: r.str(o.priv_pass, path, "priv_pass"),
    warn,
    crit,
    expect,
    label: r.str(o.label, path, "label"),
    uom: r.str(o.uom, path, "uom"),
  };
}
