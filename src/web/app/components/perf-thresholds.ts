/**
 * The values at which a Nagios threshold range ("80", "10:", "~:90", "10:20", "@10:20") starts
 * alerting: the lines a chart draws. "80" is "0:80", whose 0 is implied, not written, so only 80
 * is drawn; "~" is minus infinity (no line). Malformed text gives no line.
 */
export function thresholdLines(range: string): number[] {
  const r = range.trim().replace(/^@/, "");
  if (r === "") return [];
  const colon = r.indexOf(":");
  const num = (s: string): number | undefined => {
    if (s === "" || s === "~") return undefined;
    const n = Number(s);
    return Number.isFinite(n) ? n : undefined;
  };
  if (colon < 0) {
    const n = num(r);
    return n === undefined ? [] : [n];
  }
  const out: number[] = [];
  for (const part of [r.slice(0, colon), r.slice(colon + 1)]) {
    const n = num(part);
    if (n !== undefined && !out.includes(n)) out.push(n);
  }
  return out;
}
