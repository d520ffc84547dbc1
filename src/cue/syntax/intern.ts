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

/** Creates an empty table (open addressing, grown at half load). */
export function createInterner(): Interner {
  return new StringTable();
}

/** Whether `text` holds `k` at `start` (a loop: faster than `startsWith` for short keys). */
function sameText(k: string, text: string, start: number): boolean {
  for (let j = 0; j < k.length; j++) if (k.charCodeAt(j) !== text.charCodeAt(start + j)) return false;
  return true;
}

/** A packed array of `n` empty slots (a holey one would check for holes on every probe). */
function emptySlots(n: number): (string | undefined)[] {
  const a: (string | undefined)[] = [];
  for (let i = 0; i < n; i++) a.push(undefined);
  return a;
}

/**
 * The table behind {@link Interner}. A class rather than closures: every parse makes a new table,
 * and the scanner's calls into it stay monomorphic only if all tables share their methods.
 */
class StringTable implements Interner {
  #mask = 255;
  #keys = emptySlots(256);
  #hashes = new Int32Array(256);
  /** Per slot: index into `keywords` plus one, 0 for other strings. */
  #kinds = new Uint8Array(256);
  #size = 0;
  keyword: Keyword = "";

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
    const keys = this.#keys;
    const hashes = this.#hashes;
    const mask = this.#mask;
    let slot = h & mask;
    for (;;) {
      const k = keys[slot];
      if (k === undefined) break;
      if (hashes[slot] === h && k.length === len && sameText(k, text, start)) {
        const kind = this.#kinds[slot] as number;
        this.keyword = kind === 0 ? "" : (keywords[kind - 1] as Keyword);
        return k;
      }
      slot = (slot + 1) & mask;
    }
    const s = text.slice(start, end);
    keys[slot] = s;
    hashes[slot] = h;
    const kind = keywords.indexOf(s as (typeof keywords)[number]) + 1;
    this.#kinds[slot] = kind;
    this.keyword = kind === 0 ? "" : (keywords[kind - 1] as Keyword);
    if (++this.#size * 2 > mask) this.#grow();
    return s;
  }

  #grow(): void {
    const oldKeys = this.#keys;
    const oldHashes = this.#hashes;
    const mask = this.#mask * 2 + 1;
    const oldKinds = this.#kinds;
    const keys = emptySlots(mask + 1);
    const hashes = new Int32Array(mask + 1);
    const kinds = new Uint8Array(mask + 1);
    for (let j = 0; j < oldKeys.length; j++) {
      const k = oldKeys[j];
      if (k === undefined) continue;
      const h = oldHashes[j] as number;
      let slot = h & mask;
      while (keys[slot] !== undefined) slot = (slot + 1) & mask;
      keys[slot] = k;
      hashes[slot] = h;
      kinds[slot] = oldKinds[j] as number;
    }
    this.#mask = mask;
    this.#keys = keys;
    this.#hashes = hashes;
    this.#kinds = kinds;
  }
}
