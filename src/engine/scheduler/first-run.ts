/**
 * When an object that has never been checked runs its first check. On its grid alone the first run
 * could be up to one `check_interval` away (a minute by default), and a new object stays PENDING
 * that long; instead it runs within a short window, at an offset from the hash of its key, and
 * keeps its grid afterwards. The window grows with the number of new objects, so that a
 * configuration of 100,000 objects does not start them all at once:
 *
 *   window = min(check_interval, max(FIRST_RUN_WINDOW_MS, new objects / FIRST_RUN_RATE per second))
 *
 * A handful of new objects run within 5 s; 20,000 within 20 s; 100,000 at 60 s intervals within
 * one interval, as the grid alone would spread them.
 */
import { hashKey } from "./slots.js";

/** The shortest window new objects' first checks are spread over. */
export const FIRST_RUN_WINDOW_MS = 5_000;

/** First checks per second the window is sized for, beyond the shortest window. */
export const FIRST_RUN_RATE = 1_000;

/** The window `count` new objects' first checks are spread over (before capping at each interval). */
export function firstRunWindowMs(count: number): number {
  return Math.max(FIRST_RUN_WINDOW_MS, Math.ceil((count / FIRST_RUN_RATE) * 1000));
}

/** When a new object's first check is due: `now` plus its offset in the window (capped at its interval). */
export function firstRunDue(key: string, windowMs: number, intervalMs: number, now: number): number {
  const w = Math.max(1, Math.min(windowMs, intervalMs));
  // A different mix than the grid's phase (the high bits first), so that first runs and grid
  // slots are not correlated.
  const h = Math.imul(hashKey(key) ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  return now + (h % w);
}
