/**
 * Where on the time line a check runs. Each object gets a phase inside its interval from a hash of
 * its key, and its runs sit on the grid `phase + k * interval` (k counted from the epoch), the way
 * Prometheus spreads scrape targets. The grid depends only on the key and the interval, so:
 * - start-up spreads first runs evenly over one interval instead of running everything at once;
 * - a restart or a reload lands each object on the same slots it had before;
 * - two objects never share a phase by accident of configuration order.
 */

/** 32-bit FNV-1a over the UTF-16 code units of a string: stable across runs and processes. */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The object's offset inside its interval, in [0, intervalMs). */
export function phaseOf(key: string, intervalMs: number): number {
  return hashKey(key) % intervalMs;
}

/** The first slot of the object's grid at or after `t`. */
export function slotAtOrAfter(key: string, intervalMs: number, t: number): number {
  const phase = phaseOf(key, intervalMs);
  const into = (((t - phase) % intervalMs) + intervalMs) % intervalMs;
  return into === 0 ? t : t + (intervalMs - into);
}

/** The last slot of the object's grid at or before `t`. */
export function slotAtOrBefore(key: string, intervalMs: number, t: number): number {
  const phase = phaseOf(key, intervalMs);
  const into = (((t - phase) % intervalMs) + intervalMs) % intervalMs;
  return t - into;
}

/** The first slot of the object's grid strictly after `t`. */
export function slotAfter(key: string, intervalMs: number, t: number): number {
  return slotAtOrAfter(key, intervalMs, t + 1);
}
