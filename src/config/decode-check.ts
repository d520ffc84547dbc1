import type {
  CheckConfig,
  FlapConfig,
  ProbeConfig,
  ScheduleConfig,
  SnmpAuthProto,
  SnmpPrivProto,
  StaleStatus,
} from "../model/config.js";
import {
  DEFAULT_SCHEDULE,
  DEFAULT_FLAP as MODEL_DEFAULT_FLAP,
  SNMP_AUTH_PROTOS,
  SNMP_PRIV_PROTOS,
} from "../model/config.js";
import type { Obj, Reader } from "./decode-reader.js";
import type { DocPath } from "./locate.js";
import { unknownTypeMessage } from "./type-checks.js";

/** The defaults, frozen: every check that keeps them shares this one object. */
const DEFAULT_FLAP: FlapConfig = Object.freeze({ ...MODEL_DEFAULT_FLAP });

const STALE_STATUSES: readonly StaleStatus[] = ["UNKNOWN", "WARNING", "CRITICAL"];

/** Decodes the required `check` field of a host or service at `path`. */
export function decodeCheckField(r: Reader, parent: Obj, path: DocPath): CheckConfig {
  const o = r.obj(parent, "check", path, true);
  if (parent.check === undefined)
    return Object.freeze({
      type: "passive",
      freshnessThresholdMs: 0,
      staleStatus: "UNKNOWN",
      ...DEFAULT_SCHEDULE,
      flap: DEFAULT_FLAP,
    });
  return decodeCheck(r, o, [...path, "check"]);
}

/** Decodes one `#Check` (a probe branch plus its `#Schedule`) at `path`. */
export function decodeCheck(r: Reader, o: Obj, path: DocPath): CheckConfig {
  // One object per check, schedule fields assigned onto the probe: at 100,000 checks, spreading a
  // probe and a schedule into a third object doubled the decode time.
  const check = decodeProbe(r, o, path) as ProbeConfig & {
    -readonly [K in keyof ScheduleConfig]: ScheduleConfig[K];
  };
  check.checkIntervalMs = r.durationMs(o, "check_interval", path, "60s");
  check.retryIntervalMs = r.durationMs(o, "retry_interval", path, "15s");
  check.timeoutMs = r.durationMs(o, "timeout", path, "10s");
  check.maxAttempts = r.int(o, "max_attempts", path, DEFAULT_SCHEDULE.maxAttempts);
  check.flap = o.flap === undefined ? DEFAULT_FLAP : decodeFlap(r, r.obj(o, "flap", path), [...path, "flap"]);
  return Object.freeze(check);
}

function decodeFlap(r: Reader, o: Obj, path: DocPath): FlapConfig {
  const d = DEFAULT_FLAP;
  const enabled = r.bool(o, "enabled", path, d.enabled);
  const alpha = r.num(o, "alpha", path, d.alpha);
  const highThreshold = r.num(o, "high_threshold", path, d.highThreshold);
  const lowThreshold = r.num(o, "low_threshold", path, d.lowThreshold);
  const notifyOnFlapStop = r.bool(o, "notify_on_flap_stop", path, d.notifyOnFlapStop);
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

function oneOf<T extends string>(r: Reader, o: Obj, key: string, path: DocPath, allowed: readonly T[]): T {
  const v = r.str(o, key, path, allowed[0]);
  if ((allowed as readonly string[]).includes(v)) return v as T;
  r.report(
    [...path, key],
    `${JSON.stringify(v)} is not one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`,
  );
  return allowed[0] as T;
}

function decodeProbe(r: Reader, o: Obj, path: DocPath): ProbeConfig {
  const type = r.str(o, "type", path) as ProbeConfig["type"];
  switch (type) {
    case "tcp":
      return { type, address: r.required(o, "address", path) };
    case "http":
      return { type, url: r.required(o, "url", path) };
    case "dns":
      return { type, server: r.required(o, "server", path), name: r.required(o, "name", path) };
    case "icmp":
      return { type, host: r.required(o, "host", path) };
    case "tls":
      return {
        type,
        address: r.required(o, "address", path),
        warnWithinMs: r.durationMs(o, "warn_within", path, "336h"),
        critWithinMs: r.durationMs(o, "crit_within", path, "72h"),
      };
    case "snmp":
      return decodeSnmp(r, o, path);
    case "legacy":
      return { type, path: r.required(o, "path", path), args: r.strList(o, "args", path) };
    case "wasm":
      return { type, module: r.required(o, "module", path), args: r.strList(o, "args", path) };
    case "command":
      return { type, command: r.required(o, "command", path), args: r.strList(o, "args", path) };
    case "passive":
      return {
        type,
        freshnessThresholdMs: r.durationMs(o, "freshness_threshold", path),
        staleStatus: oneOf(r, o, "stale_status", path, STALE_STATUSES),
      };
    default: {
      const _never: never = type;
      r.report(
        [...path, "type"],
        unknownTypeMessage("check", o.type === undefined ? undefined : String(_never), undefined),
      );
      return { type: "passive", freshnessThresholdMs: 0, staleStatus: "UNKNOWN" };
    }
  }
}

function decodeSnmp(r: Reader, o: Obj, path: DocPath): ProbeConfig {
  const community = r.optStr(o, "community", path);
  const user = r.optStr(o, "user", path);
  if ((community === undefined) === (user === undefined)) {
    r.report(
      path,
      `snmp check needs exactly one of "community" (v2c) or "user" (v3), found ${community === undefined ? "neither" : "both"}`,
    );
  }
  const warn = r.str(o, "warn", path);
  const crit = r.str(o, "crit", path);
  const expect = r.str(o, "expect", path);
  if (expect !== "" && (warn !== "" || crit !== "")) {
    r.report(
      [...path, warn !== "" ? "warn" : "crit"],
      `"expect" is mutually exclusive with "warn" and "crit"`,
    );
  }
  return {
    type: "snmp",
    address: r.required(o, "address", path),
    oid: r.required(o, "oid", path),
    ...(community === undefined ? {} : { community }),
    ...(user === undefined ? {} : { user }),
    authProto: oneOf<SnmpAuthProto>(r, o, "auth_proto", path, SNMP_AUTH_PROTOS),
    authPass: r.str(o, "auth_pass", path),
    privProto: oneOf<SnmpPrivProto>(r, o, "priv_proto", path, SNMP_PRIV_PROTOS),
    privPass: r.str(o, "priv_pass", path),
    warn,
    crit,
    expect,
    label: r.str(o, "label", path),
    uom: r.str(o, "uom", path),
  };
}
