/**
 * The engine's timers: a binary min-heap ordered by (due time, kind, ordinal). The ordering key is
 * total for live timers, so timers due at the same instant always fire in the same order, whether
 * the heap was built live or rebuilt after a restore — a condition for deterministic replay.
 *
 * Entries are validated when they surface, not removed when they become moot: a deleted downtime
 * leaves its entries behind, and a passive object's freshness entry stays at its old due time while
 * results push the real deadline later (the entry is re-queued when it surfaces). That keeps `apply`
 * O(1) for results.
 */

/** Lower kinds fire first at the same instant: a downtime ending before the next one starts. */
export const DOWNTIME_END = 0;
export const DOWNTIME_START = 1;
export const FRESHNESS = 2;
export type TimerKind = typeof DOWNTIME_END | typeof DOWNTIME_START | typeof FRESHNESS;

export interface TimerEntry<T> {
  readonly at: number;
  readonly kind: TimerKind;
  readonly ord: number;
  readonly ref: T;
}

function before<T>(a: TimerEntry<T>, b: TimerEntry<T>): boolean {
  if (a.at !== b.at) return a.at < b.at;
  if (a.kind !== b.kind) return a.kind < b.kind;
  return a.ord < b.ord;
}

/** A min-heap of timer entries. */
export interface TimerQueue<T> {
  push(entry: TimerEntry<T>): void;
  peek(): TimerEntry<T> | undefined;
  pop(): TimerEntry<T> | undefined;
  clear(): void;
  readonly size: number;
}

export function createTimerQueue<T>(): TimerQueue<T> {
  let heap: TimerEntry<T>[] = [];

  function up(i: number): void {
    const e = heap[i] as TimerEntry<T>;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pe = heap[p] as TimerEntry<T>;
      if (!before(e, pe)) break;
      heap[i] = pe;
      i = p;
    }
    heap[i] = e;
  }

  function down(i: number): void {
    const n = heap.length;
    const e = heap[i] as TimerEntry<T>;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n && before(heap[r] as TimerEntry<T>, heap[l] as TimerEntry<T>)) c = r;
      const ce = heap[c] as TimerEntry<T>;
      if (!before(ce, e)) break;
      heap[i] = ce;
      i = c;
    }
    heap[i] = e;
  }

  return {
    push(entry) {
      heap.push(entry);
      up(heap.length - 1);
    },
    peek: () => heap[0],
    pop() {
      const top = heap[0];
      const last = heap.pop();
      if (heap.length > 0 && last !== undefined) {
        heap[0] = last;
        down(0);
      }
      return top;
    },
    clear() {
      heap = [];
    },
    get size() {
      return heap.length;
    },
  };
}
