const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** RFC 3339 with a zone: 2026-11-28T03:12:00Z, 2026-11-28T04:12:00.5+01:00. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/;
/** A time before now: -2h, -90s, -1h30m, -1d. */
const RELATIVE = /^-(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;

/**
 * A moment as an operator types it at a terminal: RFC 3339 (with its zone), or relative to `now`
 * (`-2h`, `-1h30m`, `-90s`, `-1d`). Ms since the epoch, or what is wrong with it.
 */
export function parseCliTime(
  text: string,
  now: number,
): { ok: true; ms: number } | { ok: false; error: string } {
  const t = text.trim();
  if (RELATIVE.test(t)) {
    let back = 0;
    for (const m of t.slice(1).matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) {
      back += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    }
    return { ok: true, ms: Math.round(now - back) };
  }
  if (RFC3339.test(t)) {
    const ms = Date.parse(t.replace(" ", "T").toUpperCase());
    if (Number.isFinite(ms)) return { ok: true, ms };
  }
  return {
    ok: false,
    error: `invalid time "${text}": want RFC 3339 (2026-11-28T03:12:00Z) or a time before now (-2h, -1h30m, -90s, -1d)`,
  };
}
