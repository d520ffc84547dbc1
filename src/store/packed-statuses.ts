/**
 * A delta's records and their keys packed into buffers of their own (PackedStatuses in records.ts),
 * the form in which parts cross from the writer's thread to the reader's, and the ways to read it.
 */
import type { PackedStatuses, ProjectionDelta } from "./records.js";
import type { EncodedStatus } from "./status-codec.js";

/** Records and their keys packed in buffers of their own, for a part that crosses to another thread. */
export function packStatuses(keys: readonly string[], records: readonly EncodedStatus[]): PackedStatuses {
  const lengths = new Uint32Array(records.length);
  const keyLengths = new Uint32Array(keys.length);
  let total = 0;
  let keyTotal = 0;
  for (let i = 0; i < records.length; i++) {
    const n = (records[i] as string).length;
    lengths[i] = n;
    total += n;
    const k = Buffer.byteLength(keys[i] as string, "utf8");
    keyLengths[i] = k;
    keyTotal += k;
  }
  // Buffers of their own: a view of a shared pool would be copied across with the whole pool.
  const bytes = Buffer.allocUnsafeSlow(total);
  const keyBytes = Buffer.allocUnsafeSlow(keyTotal);
  let at = 0;
  for (const r of records) at += bytes.write(r, at, "latin1");
  at = 0;
  for (const k of keys) at += keyBytes.write(k, at, "utf8");
  return { bytes, lengths, keyBytes, keyLengths };
}

/** The number of records a delta sets, packed or not. */
export function recordCount(d: ProjectionDelta): number {
  return d.packed === undefined ? d.statusKeys.length : d.packed.lengths.length;
}

/** The buffers to transfer (not copy) when a delta is posted to another thread. */
export function transferList(d: ProjectionDelta): ArrayBuffer[] {
  const p = d.packed;
  if (p === undefined) return [];
  return [p.bytes.buffer, p.lengths.buffer, p.keyBytes.buffer, p.keyLengths.buffer] as ArrayBuffer[];
}

/**
 * Reads strings laid one after another in `bytes`, `lengths[i]` bytes each, in order: one new string
 * per call (a young one, dropped as soon as its caller is done with it).
 */
export function stringsReader(
  bytes: Uint8Array,
  lengths: Uint32Array,
  encoding: "utf8" | "latin1",
): () => string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let i = 0;
  let at = 0;
  return () => {
    const end = at + (lengths[i++] as number);
    const s = text.toString(encoding, at, end);
    at = end;
    return s;
  };
}

/** Reads the keys of a packed delta in order. */
export function packedKeyReader(p: PackedStatuses): () => string {
  return stringsReader(p.keyBytes, p.keyLengths, "utf8");
}

/** Calls `f` with each key of a delta and its record as a string, packed or not, in order. */
export function forEachRecord(d: ProjectionDelta, f: (key: string, record: EncodedStatus) => void): void {
  if (d.packed === undefined) {
    const keys = d.statusKeys;
    for (let i = 0; i < keys.length; i++) f(keys[i] as string, d.statuses[i] as string);
    return;
  }
  const nextKey = packedKeyReader(d.packed);
  const nextRecord = stringsReader(d.packed.bytes, d.packed.lengths, "latin1");
  for (let i = 0; i < d.packed.lengths.length; i++) f(nextKey(), nextRecord());
}
