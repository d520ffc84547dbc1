/**
 * Time, injected. Nothing in the engine reads the wall clock or sets a timer directly, so tests can
 * run a day of schedule in milliseconds with a fake clock (src/testing/fake-clock.ts).
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls fn once after ms milliseconds, unless cancelled first. */
  setTimer(ms: number, fn: () => void): TimerHandle;
}

/** The real clock. Timers are unref'd: a pending check never keeps the process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};
