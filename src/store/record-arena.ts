import type { WireWriter } from "./wire.js";

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
  delete(key: string): void;
  /** The bytes under `key` as a latin1 string (a new string), or undefined. */
  get(key: string): string | undefined;
  /** Appends the bytes under `key` to `w`; false when there are none. */
  copyTo(key: string, w: WireWriter): boolean;
  keys(): IterableIterator<string>;
}

const PAGE = 1 << 20;
const OWN_BUFFER = PAGE / 8;

/** The slot capacity for a record of `len` bytes. */
function capacityFor(len: number): number {
  if (len <= 512) return Math.max(32, Math.ceil(len / 32) * 32);
  return 2 ** Math.ceil(Math.log2(len));
}

export function createRecordArena(): RecordArena {
  const slotOf = new Map<string, number>();
  // Per slot: where its bytes start (page * PAGE + offset; -1 for an own buffer), length, capacity.
  let where = new Float64Array(1024);
  let lens = new Int32Array(1024);
  let caps = new Int32Array(1024);
  let nextSlot = 0;
  const freeSlots: number[] = [];
  const pages: Buffer[] = [];
  let top = PAGE;
  const freeByCapacity = new Map<number, number[]>();
  const own = new Map<number, Buffer>();

  const grow = (): void => {
    const n = where.length * 2;
    const w = new Float64Array(n);
    w.set(where);
    where = w;
    const l = new Int32Array(n);
    l.set(lens);
    lens = l;
    const c = new Int32Array(n);
    c.set(caps);
    caps = c;
  };

  const allocate = (slot: number, cap: number): void => {
    caps[slot] = cap;
    if (cap > OWN_BUFFER) {
      own.set(slot, Buffer.allocUnsafeSlow(cap));
      where[slot] = -1;
      return;
    }
    const reused = freeByCapacity.get(cap)?.pop();
    if (reused !== undefined) {
      where[slot] = reused;
      return;
    }
    if (top + cap > PAGE) {
      pages.push(Buffer.allocUnsafeSlow(PAGE));
      top = 0;
    }
    where[slot] = (pages.length - 1) * PAGE + top;
    top += cap;
  };

  const release = (slot: number): void => {
    const cap = caps[slot] as number;
    if (cap === 0) return;
    caps[slot] = 0;
    if (where[slot] === -1) {
      own.delete(slot);
      return;
    }
    let list = freeByCapacity.get(cap);
    if (list === undefined) {
      list = [];
      freeByCapacity.set(cap, list);
    }
    list.push(where[slot] as number);
  };

  /** The buffer holding a slot's bytes, and where in it they start. */
  const bufferOf = (slot: number): Buffer => {
    const at = where[slot] as number;
    return at === -1 ? (own.get(slot) as Buffer) : (pages[Math.floor(at / PAGE)] as Buffer);
  };
  const offsetOf = (slot: number): number => {
    const at = where[slot] as number;
    return at === -1 ? 0 : at % PAGE;
  };

  return {
    get size() {
      return slotOf.size;
    },
    has: (key) => slotOf.has(key),
    set(key, bytes) {
      let slot = slotOf.get(key);
      if (slot === undefined) {
        slot = freeSlots.pop() ?? nextSlot++;
        if (slot >= where.length) grow();
        caps[slot] = 0;
        slotOf.set(key, slot);
      }
      const len = bytes.length;
      const cap = caps[slot] as number;
      // None yet, too small, or far too big for what it now holds (a long output replaced by a short one).
      if (cap === 0 || len > cap || (cap > 512 && capacityFor(len) * 4 <= cap)) {
        release(slot);
        allocate(slot, capacityFor(len));
      }
      bufferOf(slot).write(bytes, offsetOf(slot), len, "latin1");
      lens[slot] = len;
    },
    delete(key) {
      const slot = slotOf.get(key);
      if (slot === undefined) return;
      release(slot);
      slotOf.delete(key);
      freeSlots.push(slot);
    },
    get(key) {
      const slot = slotOf.get(key);
      if (slot === undefined) return undefined;
      const offset = offsetOf(slot);
      return bufferOf(slot).toString("latin1", offset, offset + (lens[slot] as number));
    },
    copyTo(key, w) {
      const slot = slotOf.get(key);
      if (slot === undefined) return false;
      const offset = offsetOf(slot);
      w.bytes(bufferOf(slot), offset, offset + (lens[slot] as number));
      return true;
    },
    keys: () => slotOf.keys(),
  };
}
