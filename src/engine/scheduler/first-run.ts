/**
 * When an object that has never been checked runs its first check. On its grid alone the first run
 * could be up to one `check_interval` away (a minute by default), and a new object stays PENDING
 * that long; instead it runs within a short window from now, at an offset from the hash of its key,
 * and keeps its grid afterwards. The window is sized by the number of new objects, at a fixed rate
 * of first checks, so that a configuration of 100,000 objects does not start them all at once while
 * the object a reload adds runs as soon as the reload applies:
 *
 *   window = min(check_interval, new objects / FIRST_RUN_RATE per second)
 *
 * One new object runs at once; 1,000 within 1 s; 20,000 within 20 s; 100,000 at 60 s intervals
 * within one interval, as the grid alone would spread them.
 */
import { hashKey } from "./slots.js";

/** First checks per second the window is sized for. */
export const FIRST_RUN_RATE = 1_000;

/**
 * The window `count` new objects' first checks are spread over (before capping at each interval):
 * at least 1 ms, where every offset is 0 (one new object runs at once).
 */
export function firstRunWindowMs(count: number): number {
  return Math.max(1, Math.ceil((count / FIRST_RUN_RATE) * 1000));
}

/** When a new object's first check is due: `now` plus its offset in the window (capped at its interval). */
export function firstRunDue(key: string, windowMs: number, intervalMs: number, now: number): number {
  const w = Math.max(1, Math.min(windowMs, intervalMs));
  // A different mix than the grid's phase (the high bits first), so that first runs and grid
  // slots are not correlated.
  const h = Math.imul(hashKey(key) ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  return now + (h % w);
}
