/**
 * String interning straight from source text: `intern(text, start, end)` returns the one string
 * with those characters, without first slicing the text (a hash over char codes, then a probe
 * that compares characters). Labels and short literal values repeat a lot in large documents
 * (`type`, `check`, `"tcp"`), so one string per spelling saves both the copies and the garbage.
 */

/** Texts longer than this are sliced, not interned: long literals rarely repeat. */
const maxInterned = 48;

/** The hash of the empty text; extend it one code unit at a time with {@link hashChar}. */
export const hashSeed = -2128831035;

/** The FNV-1a multiplier. */
export const hashPrime = 16777619;

/** FNV-1a over UTF-16 code units: lets the scanner hash while it scans. */
export function hashChar(h: number, c: number): number {
  return Math.imul(h ^ c, hashPrime);
}

/**
 * Identifiers the parser gives a meaning to. The table remembers, per string, which of these it
 * is, so the parser compares these (engine-internalized) constants instead of whole strings.
 */
// `else`, `fallback`, `otherwise` and `try` belong to the try experiment.
const keywords = [
  "_",
  "else",
  "fallback",
  "false",
  "for",
  "if",
  "import",
  "in",
  "let",
  "null",
  "otherwise",
  "package",
  "true",
  "try",
] as const;

/** One of the words the parser treats specially, or "" for any other text. */
export type Keyword = (typeof keywords)[number] | "";

/** A per-parse string table. */
export interface Interner {
  /** The keyword the string returned by the last `intern`/`internHashed` call spells, or "". */
  readonly keyword: Keyword;
  /** The interned string equal to `text.slice(start, end)`. */
  intern(text: string, start: number, end: number): string;
  /** The same, given the text's hash (from `hashSeed` and `hashChar`). */
  internHashed(text: string, start: number, end: number, hash: number): string;
}

/**
 * Creates an empty table (open addressing, grown at half load). `expected` (the number of distinct
 * strings the caller expects, e.g. from its text's length) sizes it so that it rarely grows.
 */
export function createInterner(expected = 0): Interner {
  let capacity = 256;
  while (capacity < expected * 2 && capacity < 1 << 20) capacity *= 2;
  return new StringTable(capacity);
}

/** Whether `text` holds `k` at `start` (a loop: faster than `startsWith` for short keys). */
function sameText(k: string, text: string, start: number): boolean {
  for (let j = 0; j < k.length; j++) if (k.charCodeAt(j) !== text.charCodeAt(start + j)) return false;
  return true;
}

/**
 * The table behind {@link Interner}. A class rather than closures: every parse makes a new table,
 * and the scanner's calls into it stay monomorphic only if all tables share their methods.
 *
 * Slot `i` is the pair `slots[2i]` (the hash) and `slots[2i + 1]` (the entry: the string's index
 * in `strings` plus one, shifted left by 4, or'ed with its keyword's index plus one; 0 when the
 * slot is empty): a probe reads one cache line and touches a string only when the hashes match.
 */
class StringTable implements Interner {
  #mask: number;
  #slots: Int32Array;
  #strings: string[] = [];
  keyword: Keyword = "";

  constructor(capacity: number) {
    this.#mask = capacity - 1;
    this.#slots = new Int32Array(capacity * 2);
  }

  intern(text: string, start: number, end: number): string {
    if (end - start > maxInterned) {
      this.keyword = "";
      return text.slice(start, end);
    }
    let h = hashSeed;
    for (let i = start; i < end; i++) h = hashChar(h, text.charCodeAt(i));
    return this.internHashed(text, start, end, h);
  }

  internHashed(text: string, start: number, end: number, h: number): string {
    const len = end - start;
    if (len > maxInterned) {
      this.keyword = "";
      return text.slice(start, end);
    }
    const slots = this.#slots;
    const mask = this.#mask;
    // The step to the next slot runs on every lookup, not only on a collision: code V8 optimized
    // before the first collision would otherwise lack feedback for it and deoptimize there.
    let slot = (h - 1) & mask;
    for (;;) {
      slot = (slot + 1) & mask;
      const e = slots[2 * slot + 1] as number;
      if (e === 0) break;
      if (slots[2 * slot] === h) {
        const k = this.#strings[(e >> 4) - 1] as string;
        if (k.length === len && sameText(k, text, start)) {
          const kind = e & 15;
          this.keyword = kind === 0 ? "" : (keywords[kind - 1] as Keyword);
          return k;
        }
      }
    }
    const s = text.slice(start, end);
    const kind = keywords.indexOf(s as (typeof keywords)[number]) + 1;
    this.#strings.push(s);
    slots[2 * slot] = h;
    slots[2 * slot + 1] = (this.#strings.length << 4) | kind;
    this.keyword = kind === 0 ? "" : (keywords[kind - 1] as Keyword);
    if (this.#strings.length * 2 > mask) this.#grow();
    return s;
  }

  #grow(): void {
    const old = this.#slots;
    const mask = this.#mask * 2 + 1;
    const slots = new Int32Array((mask + 1) * 2);
    for (let j = 0; j < old.length; j += 2) {
      const e = old[j + 1] as number;
      if (e === 0) continue;
      const h = old[j] as number;
      let slot = h & mask;
      while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      slots[2 * slot] = h;
      slots[2 * slot + 1] = e;
    }
    this.#mask = mask;
    this.#slots = slots;
  }
}
