/**
 * The `net` validators (IP addresses, CIDR, FQDN, ports) and the `time` package (durations in Go
 * syntax, RFC 3339 times).
 */

import { isIP } from "node:net";
import { bottom, FALSE, TRUE, type Value } from "../values.js";
import { concrete, int, str } from "./args.js";
import { makeList } from "./make.js";
import { ArgError, fn, registerPackage } from "./registry.js";

const b = (v: boolean): Value => (v ? TRUE : FALSE);
const n = (v: number | bigint): Value => ({ t: "int", v: BigInt(v) });

function ipOf(a: Value[], name: string): string | undefined {
  const v = concrete(a, 0, name);
  if (v.t === "string") return v.v;
  return undefined;
}

function isFQDN(s: string): boolean {
  if (s.length === 0 || s.length > 255) return false;
  const t = s.endsWith(".") ? s.slice(0, -1) : s;
  return t.split(".").every((l) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l));
}

function isCIDR(s: string): boolean {
  const i = s.lastIndexOf("/");
  if (i < 0) return false;
  const ip = s.slice(0, i);
  const bits = s.slice(i + 1);
  const k = isIP(ip);
  if (k === 0 || !/^\d+$/.test(bits)) return false;
  const nb = Number(bits);
  return k === 4 ? nb <= 32 : nb <= 128;
}

registerPackage("net", {
  IP: fn(1, (a) => b(isIP(ipOf(a, "net.IP") ?? "") !== 0), { validator: true }),
  IPv4: fn(1, (a) => b(isIP(ipOf(a, "net.IPv4") ?? "") === 4), { validator: true }),
  IPv6: fn(1, (a) => b(isIP(ipOf(a, "net.IPv6") ?? "") === 6), { validator: true }),
  IPCIDR: fn(1, (a) => b(isCIDR(str(a, 0, "net.IPCIDR"))), { validator: true }),
  FQDN: fn(1, (a) => b(isFQDN(str(a, 0, "net.FQDN"))), { validator: true }),
  ParseIP: fn(1, (a) => {
    const s = str(a, 0, "net.ParseIP");
    if (isIP(s) !== 4) return bottom("eval", `net.ParseIP: invalid or unsupported IP ${JSON.stringify(s)}`);
    return makeList(s.split(".").map((x) => n(Number(x))));
  }),
  JoinHostPort: fn(2, (a) => {
    const h = str(a, 0, "net.JoinHostPort");
    const p = concrete(a, 1, "net.JoinHostPort");
    const ps = p.t === "int" ? String(p.v) : p.t === "string" ? p.v : "";
    return { t: "string", v: h.includes(":") ? `[${h}]:${ps}` : `${h}:${ps}` };
  }),
  SplitHostPort: fn(1, (a) => {
    const s = str(a, 0, "net.SplitHostPort");
    const m = /^\[([^\]]*)\]:(.*)$/.exec(s) ?? /^([^:]*):([^:]*)$/.exec(s);
    if (m === null) return bottom("eval", `net.SplitHostPort: invalid address ${JSON.stringify(s)}`);
    return makeList([
      { t: "string", v: m[1] ?? "" },
      { t: "string", v: m[2] ?? "" },
    ]);
  }),
});

const units: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  µs: 1000n,
  μs: 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Parses a Go duration (`1h30m`, `1.5s`, `-2ms`) into nanoseconds. */
export function parseDuration(s: string): bigint | undefined {
  let rest = s;
  let sign = 1n;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    if (rest[0] === "-") sign = -1n;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0n;
  if (rest === "") return undefined;
  let total = 0n;
  while (rest.length > 0) {
    const m = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/.exec(rest);
    if (m === null || (m[1] === "" && (m[2] ?? "") === "")) return undefined;
    const unit = units[m[3] ?? ""] ?? 0n;
    total += BigInt(m[1] || "0") * unit;
    const frac = m[2] ?? "";
    if (frac !== "") total += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}

function formatDuration(ns: bigint): string {
  if (ns === 0n) return "0s";
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out = "";
  if (u < 1_000_000_000n) {
    const [unit, div] = u < 1000n ? ["ns", 1n] : u < 1_000_000n ? ["µs", 1000n] : ["ms", 1_000_000n];
    out = fracText(u, div as bigint) + unit;
  } else {
    const h = u / 3_600_000_000_000n;
    u %= 3_600_000_000_000n;
    const m = u / 60_000_000_000n;
    u %= 60_000_000_000n;
    if (h > 0n) out += `${h}h`;
    if (h > 0n || m > 0n) out += `${m}m`;
    out += `${fracText(u, 1_000_000_000n)}s`;
  }
  return (neg ? "-" : "") + out;
}

function fracText(v: bigint, div: bigint): string {
  const whole = v / div;
  const frac = v % div;
  if (frac === 0n) return String(whole);
  const digits = String(div).length - 1;
  return `${whole}.${String(frac).padStart(digits, "0").replace(/0+$/, "")}`;
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function validTime(s: string): boolean {
  const m = rfc3339.exec(s);
  if (m === null) return false;
  const [mo, d, h, mi, se] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && se <= 60;
}

registerPackage("time", {
  Nanosecond: { kind: "value", value: n(1n) },
  Microsecond: { kind: "value", value: n(1000n) },
  Millisecond: { kind: "value", value: n(1_000_000n) },
  Second: { kind: "value", value: n(1_000_000_000n) },
  Minute: { kind: "value", value: n(60_000_000_000n) },
  Hour: { kind: "value", value: n(3_600_000_000_000n) },
  RFC3339: { kind: "value", value: { t: "string", v: "2006-01-02T15:04:05Z07:00" } },
  RFC3339Nano: { kind: "value", value: { t: "string", v: "2006-01-02T15:04:05.999999999Z07:00" } },
  Duration: fn(1, (a) => b(parseDuration(str(a, 0, "time.Duration")) !== undefined), { validator: true }),
  Time: fn(1, (a) => b(validTime(str(a, 0, "time.Time"))), { validator: true }),
  ParseDuration: fn(1, (a) => {
    const s = str(a, 0, "time.ParseDuration");
    const d = parseDuration(s);
    if (d === undefined)
      throw new ArgError(bottom("eval", `time.ParseDuration: invalid duration ${JSON.stringify(s)}`));
    return n(d);
  }),
  FormatDuration: fn(1, (a) => ({ t: "string", v: formatDuration(int(a, 0, "time.FormatDuration")) })),
  Unix: fn(2, (a) => {
    const sec = int(a, 0, "time.Unix");
    const nsec = int(a, 1, "time.Unix");
    const ms = Number(sec) * 1000 + Number(nsec / 1_000_000n);
    return { t: "string", v: new Date(ms).toISOString().replace(".000Z", "Z") };
  }),
});
