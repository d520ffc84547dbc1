/**
 * Go `time.Duration` strings (`60s`, `1h30m`, `1.5ms`, `0`) — the `time.Duration` type of the
 * reference — parsed to milliseconds.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const COMPONENT = /([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)/y;

/** Go's own limit: a Duration is an int64 of nanoseconds (about 292 years). */
const MAX_MS = 9_223_372_036_854.775;

/**
 * Parses a duration string as Go's `time.ParseDuration` does and returns milliseconds (fractional
 * below one millisecond), or undefined when the text is not a duration.
 */
export function parseDurationMs(text: string): number | undefined {
  let s = text;
  let sign = 1;
  if (s.startsWith("-") || s.startsWith("+")) {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") return undefined;
  let total = 0;
  COMPONENT.lastIndex = 0;
  while (COMPONENT.lastIndex < s.length) {
    const at = COMPONENT.lastIndex;
    const m = COMPONENT.exec(s);
    if (m === null || m.index !== at) return undefined;
    const num = m[1] as string;
    if (num === "" || num === ".") return undefined;
    total += Number(num) * (UNIT_MS[m[2] as string] as number);
  }
  if (total > MAX_MS) return undefined;
  return sign * total;
}
