import type { ObjectState, StateType } from "../model/state.js";
import type { HistoryRecord } from "./records.js";

/**
 * The newest history entries (the global feed), packed: a ring of parallel arrays instead of an
 * object per entry. At 50,000 entries an object each cost ~215 bytes with its key, output and
 * boxed time (a fold's entries arrive by structured clone, with their properties out of object);
 * here an entry is ~44 bytes of arrays plus its output. Kinds, states and state types are codes
 * into small tables; keys are whatever string the caller passes (the projection passes the one its
 * record arena already holds, so a key is held once); author and comment, empty for all but
 * operator commands, sit in a sparse map. Entries are made into HistoryRecords when read.
 *
 * Positions run 0 (oldest live entry) to size - 1 (newest). Appending to a full ring drops the
 * oldest entry. Not thread-safe.
 */
export interface HistoryRing {
  /** Live entries (at most the capacity). */
  readonly size: number;
  /** The most entries it keeps: below it, no entry was ever dropped. */
  readonly capacity: number;
  /** Appends an entry; `key` replaces `h.key` (the same text, possibly a shared string). */
  push(h: HistoryRecord, key: string): void;
  /** The entry at a position, as a new record. */
  at(i: number): HistoryRecord;
  /** The sequence number of the entry at a position (ascending with the position). */
  seqAt(i: number): number;
  /** The object key of the entry at a position. */
  keyAt(i: number): string;
  /** Every live entry as records, oldest first. */
  toArray(): HistoryRecord[];
  /**
   * The live entries as they are now, in a view that later pushes do not change: the ring's arrays
   * are copied (a millisecond or so at 50,000 entries), no record is made until one is read. A
   * snapshot reads it in steps instead of making 50,000 records in one turn of the reader.
   */
  frozen(): FrozenHistory;
}

/** Entries at positions 0 (oldest) to size - 1, made into records when read. */
export interface FrozenHistory {
  readonly size: number;
  /** The entries at positions `from` to `to` (exclusive), as new records. */
  slice(from: number, to: number): HistoryRecord[];
}

/** The ring's parallel arrays, indexed by slot. */
interface Slots {
  seqs: Float64Array<ArrayBuffer>;
  ats: Float64Array<ArrayBuffer>;
  /** Code of the kind; 0 is never used. */
  kinds: Uint16Array<ArrayBuffer>;
  /** Code + 1 of the state and of the state type; 0: absent. */
  states: Uint8Array<ArrayBuffer>;
  stateTypes: Uint8Array<ArrayBuffer>;
  /** NaN: absent. */
  attempts: Float64Array<ArrayBuffer>;
  keys: string[];
  outputs: string[];
  /** Author and comment of the slots where either is not empty. */
  notes: Map<number, readonly [string, string]>;
}

/** The entry in slot `s` as a record; `names` decodes kinds, states and state types. */
function recordAt(a: Slots, names: readonly string[], s: number): HistoryRecord {
  const note = a.notes.get(s);
  const record: {
    -readonly [K in keyof HistoryRecord]: HistoryRecord[K];
  } = {
    seq: a.seqs[s] as number,
    at: a.ats[s] as number,
    kind: names[a.kinds[s] as number] as string,
    key: a.keys[s] as string,
    output: a.outputs[s] as string,
    author: note?.[0] ?? "",
    comment: note?.[1] ?? "",
  };
  const state = a.states[s] as number;
  if (state !== 0) record.state = names[state - 1] as ObjectState;
  const stateType = a.stateTypes[s] as number;
  if (stateType !== 0) record.stateType = names[stateType - 1] as StateType;
  const attempt = a.attempts[s] as number;
  if (!Number.isNaN(attempt)) record.attempt = attempt;
  return record;
}

const FIRST_CAPACITY = 1024;

/** An empty ring that keeps the newest `capacity` entries; its arrays grow as entries arrive. */
export function createHistoryRing(capacity: number): HistoryRing {
  const max = Math.max(1, Math.floor(capacity));
  let cap = Math.min(max, FIRST_CAPACITY);
  const a: Slots = {
    seqs: new Float64Array(cap),
    ats: new Float64Array(cap),
    kinds: new Uint16Array(cap),
    states: new Uint8Array(cap),
    stateTypes: new Uint8Array(cap),
    attempts: new Float64Array(cap),
    keys: new Array<string>(cap),
    outputs: new Array<string>(cap),
    notes: new Map(),
  };
  /** Slot of position 0, and live entries. */
  let head = 0;
  let size = 0;

  const names: string[] = [""];
  const codes = new Map<string, number>();
  const code = (s: string): number => {
    let c = codes.get(s);
    if (c === undefined) {
      c = names.length;
      if (c > 0xffff) throw new Error("history: more than 65,535 distinct kinds and states");
      names.push(s);
      codes.set(s, c);
    }
    return c;
  };

  /** Moves the live entries to arrays of twice the capacity (at most `max`), position 0 first. */
  const grow = (): void => {
    const next = Math.min(max, cap * 2);
    const order = (i: number): number => (head + i) % cap;
    const f64 = (a: Float64Array): Float64Array<ArrayBuffer> => {
      const b = new Float64Array(next);
      for (let i = 0; i < size; i++) b[i] = a[order(i)] as number;
      return b;
    };
    const u8 = (a: Uint8Array): Uint8Array<ArrayBuffer> => {
      const b = new Uint8Array(next);
      for (let i = 0; i < size; i++) b[i] = a[order(i)] as number;
      return b;
    };
    const strings = (a: string[]): string[] => {
      const b = new Array<string>(next);
      for (let i = 0; i < size; i++) b[i] = a[order(i)] as string;
      return b;
    };
    const k = new Uint16Array(next);
    for (let i = 0; i < size; i++) k[i] = a.kinds[order(i)] as number;
    const moved = [...a.notes].map(([slot, n]) => [(slot - head + cap) % cap, n] as const);
    a.notes.clear();
    for (const [slot, n] of moved) a.notes.set(slot, n);
    a.seqs = f64(a.seqs);
    a.ats = f64(a.ats);
    a.attempts = f64(a.attempts);
    a.states = u8(a.states);
    a.stateTypes = u8(a.stateTypes);
    a.kinds = k;
    a.keys = strings(a.keys);
    a.outputs = strings(a.outputs);
    head = 0;
    cap = next;
  };

  const slotOf = (i: number): number => {
    if (!(i >= 0 && i < size)) throw new RangeError(`history position ${i} of ${size}`);
    return (head + i) % cap;
  };

  const at = (i: number): HistoryRecord => recordAt(a, names, slotOf(i));

  return {
    get size() {
      return size;
    },
    capacity: max,
    push(h, key) {
      if (size === cap && cap < max) grow();
      let s: number;
      if (size < cap) {
        s = (head + size) % cap;
        size++;
      } else {
        s = head;
        head = (head + 1) % cap;
      }
      a.seqs[s] = h.seq;
      a.ats[s] = h.at;
      a.kinds[s] = code(h.kind);
      // States and state types share the code table with kinds; a code below 255 fits a byte.
      const state = h.state === undefined ? 0 : code(h.state) + 1;
      const stateType = h.stateType === undefined ? 0 : code(h.stateType) + 1;
      if (state > 0xff || stateType > 0xff) throw new Error("history: too many distinct states");
      a.states[s] = state;
      a.stateTypes[s] = stateType;
      a.attempts[s] = h.attempt ?? Number.NaN;
      a.keys[s] = key;
      a.outputs[s] = h.output;
      if (h.author !== "" || h.comment !== "") a.notes.set(s, [h.author, h.comment]);
      else a.notes.delete(s);
    },
    at,
    seqAt: (i) => a.seqs[slotOf(i)] as number,
    keyAt: (i) => a.keys[slotOf(i)] as string,
    toArray: () => Array.from({ length: size }, (_, i) => at(i)),
    frozen() {
      const copy: Slots = {
        seqs: a.seqs.slice(),
        ats: a.ats.slice(),
        kinds: a.kinds.slice(),
        states: a.states.slice(),
        stateTypes: a.stateTypes.slice(),
        attempts: a.attempts.slice(),
        keys: a.keys.slice(),
        outputs: a.outputs.slice(),
        notes: new Map(a.notes),
      };
      // Codes are only ever added, so the names known now decode every copied slot.
      const known = names.slice();
      const [first, n, c] = [head, size, cap];
      return {
        size: n,
        slice(from, to) {
          const out: HistoryRecord[] = [];
          for (let i = Math.max(0, from); i < Math.min(n, to); i++)
            out.push(recordAt(copy, known, (first + i) % c));
          return out;
        },
      };
    },
  };
}
