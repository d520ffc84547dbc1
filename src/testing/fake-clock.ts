import type { Clock, TimerHandle } from "../model/clock.js";

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that only moves when told to; timers fire in time order, ties in the order they were set. */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: Timer[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(ms: number, fn: () => void): TimerHandle {
    const t: Timer = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn, cancelled: false };
    this.#timers.push(t);
    return {
      cancel: () => {
        t.cancelled = true;
      },
    };
  }

  /** Moves time forward by ms, firing every timer due on the way (including timers they set). */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      this.#timers = this.#timers.filter((t) => !t.cancelled);
      let next: Timer | undefined;
      for (const t of this.#timers) {
        if (t.at <= end && (next === undefined || t.at < next.at || (t.at === next.at && t.seq < next.seq))) {
          next = t;
        }
      }
      if (next === undefined) break;
      this.#timers.splice(this.#timers.indexOf(next), 1);
      this.#now = next.at;
      next.fn();
    }
    this.#now = end;
  }

  /** How many timers are still pending. */
  pending(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }
}
