/**
 * "As of": the moment the status and overview pages show instead of now. It lives in the address
 * (`?at=2026-11-28T03:12:00.000Z`), so a view of the past can be shared and the back button returns
 * to the live one.
 */

/** The `at` parameter as ms since the epoch; undefined for the live view (absent or unreadable). */
export function asOfParam(params: URLSearchParams): number | undefined {
  const v = params.get("at");
  if (v === null || v === "") return undefined;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : undefined;
}

/** How a moment is written in the address: UTC, ISO 8601, to the millisecond. */
export function asOfValue(ms: number): string {
  return new Date(ms).toISOString();
}

/** A moment as a `datetime-local` input's value (local time, to the second). */
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A `datetime-local` value (local time) as ms since the epoch; undefined when empty or malformed. */
export function fromLocalInput(v: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(v)) return undefined;
  const ms = new Date(v).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * The oldest moment an out_of_range answer names ("… before the oldest time the log can answer,
 * 2026-11-28T01:00:00.000Z"): the last ISO time in the message, or undefined when it names none
 * (a moment in the future names "now", which is not the oldest: callers pass only past refusals).
 */
export function oldestNamed(message: string): number | undefined {
  const m = /oldest[^0-9]*(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)/.exec(message);
  if (m === null) return undefined;
  const ms = Date.parse(m[1] as string);
  return Number.isFinite(ms) ? ms : undefined;
}
