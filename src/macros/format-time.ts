/**
 * The date and time macros, rendered in UTC so that a notification reads the same whatever the
 * server's time zone, in Nagios' default `us` date format.
 */

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

const two = (n: number): string => String(n).padStart(2, "0");

/** `01:36:37` */
export function timeOf(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
}

/** `11-21-2026` (MM-DD-YYYY) */
export function dateOf(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}-${d.getUTCFullYear()}`;
}

/** `Sat Nov 21 01:36:37 UTC 2026` */
export function longDateTimeOf(ms: number): string {
  const d = new Date(ms);
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${two(d.getUTCDate())} ${timeOf(ms)} UTC ${d.getUTCFullYear()}`;
}

/** `0d 1h 2m 3s`, as Nagios prints $SERVICEDURATION$. */
export function durationOf(ms: number): string {
  let s = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(s / 86400);
  s -= days * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return `${days}d ${h}h ${m}m ${s}s`;
}
