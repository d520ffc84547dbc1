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

/** A min-heap of timer entries. */
export interface TimerQueue<T> {
  push(entry: TimerEntry<T>): void;
  /** The head entry (the same object until the queue changes). */
  peek(): TimerEntry<T> | undefined;
  pop(): TimerEntry<T> | undefined;
  clear(): void;
  readonly size: number;
}

/**
 * The heap is held in parallel typed arrays (due time, kind, ordinal) beside an array of refs: a
 * passive object has a freshness timer all its life, and at 100,000 objects an object per entry
 * (with its due time boxed) cost 8 MB; the arrays cost 2.
 */
export function createTimerQueue<T>(): TimerQueue<T> {
  let at = new Float64Array(64);
  let kind = new Uint8Array(64);
  let ord = new Float64Array(64);
  let refs: (T | undefined)[] = [];
  let n = 0;
  let head: TimerEntry<T> | undefined;

  const grow = (): void => {
    const cap = at.length * 2;
    const a = new Float64Array(cap);
    a.set(at);
    at = a;
    const k = new Uint8Array(cap);
    k.set(kind);
    kind = k;
    const o = new Float64Array(cap);
    o.set(ord);
    ord = o;
  };
  /** Whether (a, k, o) sorts before the entry at position j. */
  const before = (a: number, k: number, o: number, j: number): boolean => {
    const aj = at[j] as number;
    if (a !== aj) return a < aj;
    const kj = kind[j] as number;
    if (k !== kj) return k < kj;
    return o < (ord[j] as number);
  };
  const move = (from: number, to: number): void => {
    at[to] = at[from] as number;
    kind[to] = kind[from] as number;
    ord[to] = ord[from] as number;
    refs[to] = refs[from];
  };
  const place = (i: number, a: number, k: number, o: number, r: T | undefined): void => {
    at[i] = a;
    kind[i] = k;
    ord[i] = o;
    refs[i] = r;
  };
  /** Sifts the entry (a, k, o, r) up from the hole at i. */
  const up = (i: number, a: number, k: number, o: number, r: T | undefined): void => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(a, k, o, p)) break;
      move(p, i);
      i = p;
    }
    place(i, a, k, o, r);
  };
  /** Sifts the entry (a, k, o, r) down from the hole at i. */
  const down = (i: number, a: number, k: number, o: number, r: T | undefined): void => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let c = l;
      const rr = l + 1;
      if (rr < n && before(at[rr] as number, kind[rr] as number, ord[rr] as number, l)) c = rr;
      if (!childBefore(c, a, k, o)) break;
      move(c, i);
      i = c;
    }
    place(i, a, k, o, r);
  };
  /** Whether the entry at c sorts before (a, k, o). */
  const childBefore = (c: number, a: number, k: number, o: number): boolean => {
    const ac = at[c] as number;
    if (ac !== a) return ac < a;
    const kc = kind[c] as number;
    if (kc !== k) return kc < k;
    return (ord[c] as number) < o;
  };

  return {
    push(e) {
      if (n === at.length) grow();
      head = undefined;
      up(n++, e.at, e.kind, e.ord, e.ref);
    },
    peek() {
      if (n === 0) return undefined;
      head ??= { at: at[0] as number, kind: kind[0] as TimerKind, ord: ord[0] as number, ref: refs[0] as T };
      return head;
    },
    pop() {
      const top = this.peek();
      if (top === undefined) return undefined;
      head = undefined;
      n--;
      const a = at[n] as number;
      const k = kind[n] as number;
      const o = ord[n] as number;
      const r = refs[n];
      refs[n] = undefined;
      if (n > 0) down(0, a, k, o, r);
      return top;
    },
    clear() {
      n = 0;
      head = undefined;
      refs = [];
    },
    get size() {
      return n;
    },
  };
}
