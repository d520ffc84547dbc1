import { WEEKDAYS, type WindowConfig } from "../model/config.js";

/**
 * A policy's `period`, read in one IANA time zone. A window is one weekday and [start, end) in
 * minutes after local midnight; `end` may be 24:00 and a window never wraps past midnight. Local
 * time comes from Intl (ICU), so daylight saving moves windows with the wall clock.
 */
export interface NotifyZone {
  /** The IANA name, e.g. `UTC`, `Europe/Berlin`. */
  readonly name: string;
  /** The weekday (0 Sunday) and minute after local midnight at a time. */
  local(ms: number): { weekday: number; minute: number; y: number; m: number; d: number };
}

/** Thrown for a time zone Intl does not know. */
export class TimeZoneError extends Error {
  override readonly name = "TimeZoneError";
}

const DAY_INDEX: Readonly<Record<string, number>> = {
  Sun: 0,
  Mon: 1,
  Tue: 2,
  Wed: 3,
  Thu: 4,
  Fri: 5,
  Sat: 6,
};

/**
 * The zone notifications are evaluated in: `name` when given, else `TZ`, else the system's zone
 * (Intl's default), else UTC. Throws TimeZoneError for an unknown name.
 */
export function createNotifyZone(name?: string): NotifyZone {
  const tz = name || process.env.TZ || Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      weekday: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    });
  } catch (e) {
    throw new TimeZoneError(`unknown time zone "${tz}"`, { cause: e });
  }
  // A minute's answer is the same for every ms in it: cache the last one (the notifier asks about
  // the same minute thousands of times in a burst).
  let cachedMinute = Number.NaN;
  let cached = { weekday: 0, minute: 0, y: 0, m: 0, d: 0 };
  return {
    name: fmt.resolvedOptions().timeZone,
    local(ms) {
      const min = Math.floor(ms / 60_000);
      if (min === cachedMinute) return cached;
      const p: Record<string, string> = {};
      for (const part of fmt.formatToParts(ms)) p[part.type] = part.value;
      cached = {
        weekday: DAY_INDEX[p.weekday as string] ?? 0,
        minute: Number(p.hour) * 60 + Number(p.minute),
        y: Number(p.year),
        m: Number(p.month),
        d: Number(p.day),
      };
      cachedMinute = min;
      return cached;
    },
  };
}

/** Whether `ms` falls in one of the windows; an empty period is always open. */
export function inPeriod(period: readonly WindowConfig[], ms: number, zone: NotifyZone): boolean {
  if (period.length === 0) return true;
  const { weekday, minute } = zone.local(ms);
  for (const w of period) {
    if (WEEKDAYS.indexOf(w.weekday) === weekday && minute >= w.startMinute && minute < w.endMinute)
      return true;
  }
  return false;
}

/** The UTC time of a local wall-clock minute in the zone (the later one across a DST gap). */
function utcOf(zone: NotifyZone, y: number, m: number, d: number, minute: number): number {
  const wall = Date.UTC(y, m - 1, d, 0, minute);
  let guess = wall;
  for (let i = 0; i < 3; i++) {
    const l = zone.local(guess);
    const asUtc = Date.UTC(l.y, l.m - 1, l.d, 0, l.minute);
    const next = guess + (wall - asUtc);
    if (next === guess) break;
    guess = next;
  }
  return guess;
}

/**
 * When the period is next open at or after `ms`: `ms` itself when open now, undefined when the
 * period has no window at all (cannot happen for a decoded config: an empty period is always open).
 */
export function nextPeriodOpen(
  period: readonly WindowConfig[],
  ms: number,
  zone: NotifyZone,
): number | undefined {
  if (inPeriod(period, ms, zone)) return ms;
  let best: number | undefined;
  const today = zone.local(ms);
  for (let day = 0; day <= 7; day++) {
    const date = new Date(Date.UTC(today.y, today.m - 1, today.d + day));
    const wd = date.getUTCDay();
    for (const w of period) {
      if (WEEKDAYS.indexOf(w.weekday) !== wd || w.startMinute >= w.endMinute) continue;
      const t = utcOf(zone, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), w.startMinute);
      const at = Math.ceil(t / 60_000) * 60_000;
      if (at > ms && (best === undefined || at < best)) best = at;
    }
    if (best !== undefined) return best;
  }
  return best;
}
