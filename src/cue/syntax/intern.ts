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

/** FNV-1a over UTF-16 code units: lets the scanner hash while it scans. */
export function hashChar(h: number, c: number): number {
  return Math.imul(h ^ c, 16777619);
}

/** A per-parse string table. */
export interface Interner {
  /** The interned string equal to `text.slice(start, end)`. */
  intern(text: string, start: number, end: number): string;
  /** The same, given the text's hash (from `hashSeed` and `hashChar`). */
  internHashed(text: string, start: number, end: number, hash: number): string;
}

/** Creates an empty table (open addressing, grown at half load). */
export function createInterner(): Interner {
  let mask = 255;
  let keys: (string | undefined)[] = new Array(mask + 1).fill(undefined);
  let hashes = new Int32Array(mask + 1);
  let size = 0;

  const grow = (): void => {
    const oldKeys = keys;
    const oldHashes = hashes;
    mask = mask * 2 + 1;
    keys = new Array(mask + 1).fill(undefined);
    hashes = new Int32Array(mask + 1);
    for (let j = 0; j < oldKeys.length; j++) {
      const k = oldKeys[j];
      if (k === undefined) continue;
      const h = oldHashes[j] as number;
      let slot = h & mask;
      while (keys[slot] !== undefined) slot = (slot + 1) & mask;
      keys[slot] = k;
      hashes[slot] = h;
    }
  };

  const internHashed = (text: string, start: number, end: number, h: number): string => {
    const len = end - start;
    if (len > maxInterned) return text.slice(start, end);
    let slot = h & mask;
    for (;;) {
      const k = keys[slot];
      if (k === undefined) break;
      if (hashes[slot] === h && k.length === len) {
        let j = 0;
        while (j < len && k.charCodeAt(j) === text.charCodeAt(start + j)) j++;
        if (j === len) return k;
      }
      slot = (slot + 1) & mask;
    }
    const s = text.slice(start, end);
    keys[slot] = s;
    hashes[slot] = h;
    if (++size * 2 > mask) grow();
    return s;
  };

  const intern = (text: string, start: number, end: number): string => {
    if (end - start > maxInterned) return text.slice(start, end);
    let h = hashSeed;
    for (let i = start; i < end; i++) h = hashChar(h, text.charCodeAt(i));
    return internHashed(text, start, end, h);
  };

  return { intern, internHashed };
}
