/**
 * Byte strings by key, held outside the JavaScript heap: the projection's encoded status records
 * (src/store/status-codec.ts) on the thread that serves reads. A record replaced under full-speed
 * ingestion — every object about once a second — is rewritten in place instead of becoming a new
 * string that lives long enough to be copied by the young-generation collector and promoted, which
 * made that thread's collections the longest pauses a read could meet.
 *
 * Records live in 1 MiB pages, each in a slot whose capacity is rounded up (to 32 bytes up to 512,
 * then to a power of two), so small changes in size stay in place; freed slots are reused by
 * capacity. Records above 128 KiB get a buffer of their own. Keys iterate in insertion order, as a
 * Map's do. Not thread-safe.
 */
export interface RecordArena {
  readonly size: number;
  has(key: string): boolean;
  /** Stores `bytes` (a latin1 string: one char per byte) under `key`. */
  set(key: string, bytes: string): void;
  /** Stores bytes `start` to `start + len` of `src` under `key`. */
  setBytes(key: string, src: Uint8Array, start: number, len: number): void;
  delete(key: string): void;
  /** The bytes under `key` as a latin1 string (a new string), or undefined. */
  get(key: string): string | undefined;
  /**
   * The slot holding `key`'s bytes, or -1: a handle for `lengthOf` and `copy`. A key keeps its slot
   * while it is in the arena (a `set` may move its bytes, never its slot), so a slot found stays
   * the key's until `generation` changes.
   */
  find(key: string): number;
  /** Changes whenever a key leaves the arena (its slot may then be reused for another key). */
  readonly generation: number;
  /** The key a slot `find` returned belongs to: the arena's own copy of it. */
  keyAt(slot: number): string;
  /** The number of bytes in a slot `find` returned. */
  lengthOf(slot: number): number;
  /**
   * Copies the bytes of a slot `find` returned into `dst` at `at` — all of them, or those from
   * `from` up to `to` — and returns where they end.
   */
  copy(slot: number, dst: Uint8Array, at: number, from?: number, to?: number): number;
  /** The `mark` of the bytes in a slot `find` returned, as computed when they were stored (0 without one). */
  markOf(slot: number): number;
  keys(): IterableIterator<string>;
  /**
   * How many records hold each `tag` value (0 to `tagValues` - 1), as computed when they were
   * stored: one pass over a typed array, for counting without reading the records.
   */
  tagCounts(): Uint32Array;
  /** The `tag` of the bytes in a slot `find` returned, as computed when they were stored (0 without one). */
  tagOf(slot: number): number;
}

const PAGE = 1 << 20;
const OWN_BUFFER = PAGE / 8;

/** The slot capacity for a record of `len` bytes. */
function capacityFor(len: number): number {
  if (len <= 512) return Math.max(32, Math.ceil(len / 32) * 32);
  return 2 ** Math.ceil(Math.log2(len));
}

/**
 * A number an arena computes from a record's bytes (`bytes[start..start + len)`) when it stores
 * them and keeps beside them, so that a reader needs no look at the bytes to know it.
 */
export type RecordMark = (bytes: Uint8Array, start: number, len: number) => number;

/** Like a RecordMark, of a key's record, in 0 .. `values` - 1: what `tagCounts` counts. */
export interface RecordTag {
  readonly values: number;
  tag(bytes: Uint8Array, start: number, len: number, key: string): number;
}

export function createRecordArena(mark?: RecordMark, tag?: RecordTag): RecordArena {
  const slotOf = new Map<string, number>();
  // The key of each slot in use, so that others can hold the arena's copy instead of their own.
  const keyOfSlot: string[] = [];
  // Per slot: its page (-1: a buffer of its own), where its bytes start there, length, capacity.
  let pageOf = new Int32Array(1024);
  let offsets = new Int32Array(1024);
  let lens = new Int32Array(1024);
  let caps = new Int32Array(1024);
  let marks = new Int32Array(1024);
  let tags = new Uint16Array(tag === undefined ? 0 : 1024);
  let nextSlot = 0;
  let generation = 0;
  const freeSlots: number[] = [];
  const pages: Buffer[] = [];
  // The same bytes as plain Uint8Arrays, for copying out: their subarrays cost less than a Buffer's.
  const views: Uint8Array[] = [];
  let top = PAGE;
  // Free space by capacity, as page * PAGE + offset.
  const freeByCapacity = new Map<number, number[]>();
  const own = new Map<number, Buffer>();

  const grown = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
    const b = new Int32Array(a.length * 2);
    b.set(a);
    return b;
  };
  const grow = (): void => {
    pageOf = grown(pageOf);
    offsets = grown(offsets);
    lens = grown(lens);
    caps = grown(caps);
    marks = grown(marks);
    if (tag !== undefined) {
      const t = new Uint16Array(tags.length * 2);
      t.set(tags);
      tags = t;
    }
  };

  const allocate = (slot: number, cap: number): void => {
    caps[slot] = cap;
    if (cap > OWN_BUFFER) {
      own.set(slot, Buffer.allocUnsafeSlow(cap));
      pageOf[slot] = -1;
      offsets[slot] = 0;
      return;
    }
    const reused = freeByCapacity.get(cap)?.pop();
    if (reused !== undefined) {
      pageOf[slot] = Math.floor(reused / PAGE);
      offsets[slot] = reused % PAGE;
      return;
    }
    if (top + cap > PAGE) {
      const page = Buffer.allocUnsafeSlow(PAGE);
      pages.push(page);
      views.push(new Uint8Array(page.buffer, page.byteOffset, PAGE));
      top = 0;
    }
    pageOf[slot] = pages.length - 1;
    offsets[slot] = top;
    top += cap;
  };

  const release = (slot: number): void => {
    const cap = caps[slot] as number;
    if (cap === 0) return;
    caps[slot] = 0;
    const page = pageOf[slot] as number;
    if (page === -1) {
      own.delete(slot);
      return;
    }
    let list = freeByCapacity.get(cap);
    if (list === undefined) {
      list = [];
      freeByCapacity.set(cap, list);
    }
    list.push(page * PAGE + (offsets[slot] as number));
  };

  /** The slot of `key` with room for `len` bytes (its length set to `len`), made if need be. */
  const place = (key: string, len: number): number => {
    let slot = slotOf.get(key);
    if (slot === undefined) {
      slot = freeSlots.pop() ?? nextSlot++;
      if (slot >= caps.length) grow();
      caps[slot] = 0;
      slotOf.set(key, slot);
      keyOfSlot[slot] = key;
    }
    const cap = caps[slot] as number;
    // None yet, too small, or far too big for what it now holds (a long output replaced by a short one).
    if (cap === 0 || len > cap || (cap > 512 && capacityFor(len) * 4 <= cap)) {
      release(slot);
      allocate(slot, capacityFor(len));
    }
    lens[slot] = len;
    return slot;
  };

  /** The buffer holding a slot's bytes (they start at offsets[slot]). */
  const bufferOf = (slot: number): Buffer => {
    const page = pageOf[slot] as number;
    return page === -1 ? (own.get(slot) as Buffer) : (pages[page] as Buffer);
  };

  return {
    get size() {
      return slotOf.size;
    },
    get generation() {
      return generation;
    },
    has: (key) => slotOf.has(key),
    set(key, bytes) {
      const slot = place(key, bytes.length);
      const buf = bufferOf(slot);
      buf.write(bytes, offsets[slot] as number, bytes.length, "latin1");
      if (mark !== undefined) marks[slot] = mark(buf, offsets[slot] as number, bytes.length);
      if (tag !== undefined) tags[slot] = tag.tag(buf, offsets[slot] as number, bytes.length, key);
    },
    setBytes(key, src, start, len) {
      const slot = place(key, len);
      const page = pageOf[slot] as number;
      const dst = page === -1 ? (own.get(slot) as Buffer) : (views[page] as Uint8Array);
      // Byte by byte: a view for TypedArray#set would be the one allocation per record left.
      for (let i = 0, at = offsets[slot] as number; i < len; i++) dst[at + i] = src[start + i] as number;
      if (mark !== undefined) marks[slot] = mark(dst, offsets[slot] as number, len);
      if (tag !== undefined) tags[slot] = tag.tag(dst, offsets[slot] as number, len, key);
    },
    delete(key) {
      const slot = slotOf.get(key);
      if (slot === undefined) return;
      release(slot);
      slotOf.delete(key);
      keyOfSlot[slot] = "";
      freeSlots.push(slot);
      generation++;
    },
    get(key) {
      const slot = slotOf.get(key);
      if (slot === undefined) return undefined;
      const offset = offsets[slot] as number;
      return bufferOf(slot).toString("latin1", offset, offset + (lens[slot] as number));
    },
    find: (key) => slotOf.get(key) ?? -1,
    keyAt: (slot) => keyOfSlot[slot] as string,
    lengthOf: (slot) => lens[slot] as number,
    copy(slot, dst, at, from = 0, to = lens[slot] as number) {
      const page = pageOf[slot] as number;
      const src = page === -1 ? (own.get(slot) as Buffer) : (views[page] as Uint8Array);
      const start = (offsets[slot] as number) + from;
      const n = to - from;
      // A short run (a part of a record) byte by byte: a view for TypedArray#set is an allocation.
      if (n <= 64) for (let i = 0; i < n; i++) dst[at + i] = src[start + i] as number;
      else dst.set(src.subarray(start, start + n), at);
      return at + n;
    },
    markOf: (slot) => marks[slot] as number,
    keys: () => slotOf.keys(),
    tagOf: (slot) => (tag === undefined ? 0 : (tags[slot] as number)),
    tagCounts() {
      const counts = new Uint32Array(tag?.values ?? 0);
      if (tag === undefined) return counts;
      // Freed slots have an empty key.
      for (let slot = 0; slot < nextSlot; slot++) {
        if (keyOfSlot[slot] !== "")
          counts[tags[slot] as number] = (counts[tags[slot] as number] as number) + 1;
      }
      return counts;
    },
  };
}
