import { stringsReader } from "./packed-statuses.js";
import type { Projection } from "./projection.js";
import type { StatusRecord } from "./records.js";
import { decodeStatus } from "./status-codec.js";

/**
 * Status records on their way from the reader's projection to the writer's snapshot: the reader
 * copies them out of its arena as they are held (bytes, one buffer per part), the writer — at its
 * low priority — decodes them into the snapshot's JSON. Decoding and serializing 100,000 records
 * on the reader took ~0.5 s of the CPU that serves reads at every snapshot (every 2,000,000 events,
 * every ~30 s under full-speed ingestion); copying them takes a few milliseconds.
 */
export interface PackedRecords {
  readonly keys: readonly string[];
  /** The records one after another, `lengths[i]` bytes each (their encoding, src/store/status-codec.ts). */
  readonly bytes: Uint8Array;
  readonly lengths: Uint32Array;
}

/** The records of `keys[from..to)` as the projection holds them (keys without a record are left out). */
export function packRecords(p: Projection, keys: readonly string[], from: number, to: number): PackedRecords {
  const refs = new Int32Array(to - from);
  const lengths: number[] = [];
  const kept: string[] = [];
  let total = 0;
  for (let i = from; i < to; i++) {
    const ref = p.statusRef(keys[i] as string);
    refs[i - from] = ref;
    if (ref < 0) continue;
    const n = p.statusLength(ref);
    kept.push(keys[i] as string);
    lengths.push(n);
    total += n;
  }
  // A buffer of its own: it is transferred, not copied, to the writer.
  const bytes = new Uint8Array(new ArrayBuffer(total));
  let at = 0;
  for (const ref of refs) if (ref >= 0) at = p.copyStatus(ref, bytes, at);
  return { keys: kept, bytes, lengths: Uint32Array.from(lengths) };
}

/** The records as the JSON elements of a ProjectionSnapshot's `statuses` (no brackets, comma-separated). */
export function recordsJson(r: PackedRecords): string {
  const next = stringsReader(r.bytes, r.lengths, "latin1");
  const out: StatusRecord[] = [];
  for (let i = 0; i < r.keys.length; i++) out.push(decodeStatus(r.keys[i] as string, next()));
  return JSON.stringify(out).slice(1, -1);
}
