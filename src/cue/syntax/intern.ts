/**
 * String interning straight from source text: `intern(text, start, end)` returns the one string
 * with those characters, without first slicing the text (a hash over char codes, then a probe
 * that compares characters). Labels and short literal values repeat a lot in large documents
 * (`type`, `check`, `"tcp"`), so one string per spelling saves both the copies and the garbage.
 */

/** Texts longer than this are sliced, not interned: long literals rarely repeat. */
const maxInterned = 48;

/** A per-parse string table. */
export interface Interner {
  /** The interned string equal to `text.slice(start, end)`. */
  intern(text: string, start: number, end: number): string;
}

/** Creates an empty table (open addressing, grown at half load). */
export function createInterner(): Interner {
  let mask = 1023;
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

  const intern = (text: string, start: number, end: number): string => {
    const len = end - start;
    if (len > maxInterned) return text.slice(start, end);
    // FNV-1a over UTF-16 code units.
    let h = -2128831035;
    for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
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

  return { intern };
}
