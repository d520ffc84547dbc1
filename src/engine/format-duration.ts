/**
 * Formats a duration the way the configuration spells them: `5m`, `5m12s`, `1h2m`, `1d3h`,
 * `750ms`. Whole seconds are shown above one second (milliseconds are dropped there).
 */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  let s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  let out = "";
  if (d > 0) out += `${d}d`;
  if (h > 0) out += `${h}h`;
  if (m > 0) out += `${m}m`;
  if (s > 0) out += `${s}s`;
  return out;
}
