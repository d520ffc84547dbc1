/**
 * The results stream sequences a server has logged: every one at or below `floor`, and the ranges
 * listed in `above` (sorted, disjoint, inclusive, none touching the floor or each other).
 *
 * A single high-water mark is not enough: JetStream redelivers a message that a dead leader took
 * and never acknowledged only after the consumer's ack wait, behind newer messages the new leader
 * has logged meanwhile. Such a message is above the floor and in no range, so it is logged, not
 * skipped as a duplicate (docs/zones.md, "Exactly once into the log").
 */
export interface LoggedSeqs {
  readonly floor: number;
  readonly above: readonly (readonly [number, number])[];
}

/** The most ranges kept above the floor; past it the oldest gap is given up (see `add`). */
export const MAX_RANGES = 1_000;

export class SeqSet {
  #floor: number;
  /** Sorted, disjoint, inclusive; every `lo` is above `floor + 1` and above the previous `hi + 1`. */
  #ranges: [number, number][];

  constructor(seqs: LoggedSeqs = { floor: 0, above: [] }) {
    this.#floor = Math.max(0, Math.trunc(seqs.floor));
    this.#ranges = [];
    for (const [lo, hi] of seqs.above) this.#addRange(lo, hi);
  }

  get floor(): number {
    return this.#floor;
  }

  /** The highest sequence in the set. */
  get high(): number {
    const last = this.#ranges[this.#ranges.length - 1];
    return last === undefined ? this.#floor : last[1];
  }

  has(seq: number): boolean {
    if (seq <= this.#floor) return true;
    // Few ranges (usually none or one): a binary search would buy nothing.
    for (const [lo, hi] of this.#ranges) {
      if (seq < lo) return false;
      if (seq <= hi) return true;
    }
    return false;
  }

  /**
   * Adds a sequence. Answers how many sequences were given up to keep at most `MAX_RANGES` ranges:
   * the oldest gap is then treated as logged (its messages were never delivered in all that time).
   */
  add(seq: number): number {
    return this.#addRange(seq, seq);
  }

  /** Adds everything in another set (the union of two records of what was logged). */
  union(other: LoggedSeqs): void {
    if (other.floor > this.#floor) this.#addRange(this.#floor + 1, other.floor);
    for (const [lo, hi] of other.above) this.#addRange(lo, hi);
  }

  clone(): SeqSet {
    return new SeqSet(this.toJSON());
  }

  toJSON(): LoggedSeqs {
    return { floor: this.#floor, above: this.#ranges.map(([lo, hi]) => [lo, hi] as const) };
  }

  #addRange(lo0: number, hi0: number): number {
    let lo = Math.trunc(lo0);
    const hi = Math.trunc(hi0);
    if (!(hi >= lo) || hi <= this.#floor) return 0;
    lo = Math.max(lo, this.#floor + 1);
    const out: [number, number][] = [];
    let merged: [number, number] = [lo, hi];
    let placed = false;
    for (const r of this.#ranges) {
      if (r[1] + 1 < merged[0]) out.push(r);
      else if (merged[1] + 1 < r[0]) {
        if (!placed) {
          out.push(merged);
          placed = true;
        }
        out.push(r);
      } else merged = [Math.min(r[0], merged[0]), Math.max(r[1], merged[1])];
    }
    if (!placed) out.push(merged);
    this.#ranges = out;
    this.#settle();
    let givenUp = 0;
    while (this.#ranges.length > MAX_RANGES) {
      const first = this.#ranges[0] as [number, number];
      givenUp += first[0] - this.#floor - 1;
      this.#floor = first[1];
      this.#ranges.shift();
      this.#settle();
    }
    return givenUp;
  }

  /** Moves the floor over a first range that touches it. */
  #settle(): void {
    const first = this.#ranges[0];
    if (first !== undefined && first[0] <= this.#floor + 1) {
      this.#floor = Math.max(this.#floor, first[1]);
      this.#ranges.shift();
    }
  }
}
