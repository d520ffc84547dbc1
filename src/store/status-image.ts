/**
 * A status image: what a kept snapshot must hold to be a starting point of ListStatus `at`
 * (docs/storage.md, "Status as of a moment") and nothing else — the status records as the reader
 * holds them (encoded, src/store/status-codec.ts), the downtimes, comments and pending reschedules,
 * and the fold's state; no engine state and no history feed, which a rebuild never reads. Binary,
 * so that a rebuild copies the records into its projection without parsing or encoding them.
 *
 * Layout, deflate-raw compressed as a whole (the log's packBody):
 *   u32 version (1) | u32 frame bytes | frame (JSON: ImageFrame) | u32 count |
 *   u32[count] key lengths | u32[count] record lengths | keys (UTF-8) | records (latin1 bytes)
 * All integers little-endian.
 */
import { inflateRawSync } from "node:zlib";
import { packBody } from "./event-log.js";
import type { FoldSnapshot } from "./fold.js";
import type { ProjectionImage } from "./projection.js";
import type { CommentRecord, DowntimeRecord, ProjectionDelta, RescheduleRecord } from "./records.js";
import type { PackedRecords } from "./snapshot-records.js";

const VERSION = 1;

/** What an image holds beside the records. */
export interface ImageFrame {
  readonly eventSeq: number;
  readonly downtimes: readonly DowntimeRecord[];
  readonly comments: readonly CommentRecord[];
  readonly reschedules?: readonly RescheduleRecord[];
  readonly fold: FoldSnapshot;
}

/**
 * An image read back: the delta that makes its projection of an empty one (records packed, as
 * views of the image's bytes: apply it on this thread, never transfer it), and the fold's state.
 */
export interface StatusImage {
  readonly delta: ProjectionDelta;
  readonly fold: FoldSnapshot;
}

/** The image of `parts` (the reader's records at a snapshot's barrier, in order) and `frame`, packed. */
export function encodeStatusImage(frame: ImageFrame, parts: readonly PackedRecords[]): Buffer {
  const frameBytes = Buffer.from(JSON.stringify(frame), "utf8");
  let count = 0;
  let keyTotal = 0;
  let recordTotal = 0;
  const keys: Buffer[] = [];
  for (const p of parts) {
    count += p.keys.length;
    recordTotal += p.bytes.byteLength;
    for (const k of p.keys) keys.push(Buffer.from(k, "utf8"));
  }
  for (const k of keys) keyTotal += k.length;
  const out = Buffer.allocUnsafe(12 + frameBytes.length + 8 * count + keyTotal + recordTotal);
  let at = out.writeUInt32LE(VERSION, 0);
  at = out.writeUInt32LE(frameBytes.length, at);
  at += frameBytes.copy(out, at);
  at = out.writeUInt32LE(count, at);
  for (const k of keys) at = out.writeUInt32LE(k.length, at);
  for (const p of parts) for (const n of p.lengths) at = out.writeUInt32LE(n, at);
  for (const k of keys) at += k.copy(out, at);
  for (const p of parts) {
    out.set(p.bytes, at);
    at += p.bytes.byteLength;
  }
  return packBody(out);
}

/** The image of a projection as held (its capture) and the fold's state beside it, packed. */
export function statusImageOf(p: ProjectionImage, fold: FoldSnapshot): Buffer {
  const lengths = new Uint32Array(p.encoded.length);
  let total = 0;
  for (let i = 0; i < p.encoded.length; i++) {
    const n = (p.encoded[i] as string).length;
    lengths[i] = n;
    total += n;
  }
  const bytes = Buffer.allocUnsafe(total);
  let at = 0;
  for (const r of p.encoded) at += bytes.write(r, at, "latin1");
  const frame: ImageFrame = {
    eventSeq: p.eventSeq,
    downtimes: p.downtimes,
    comments: p.comments ?? [],
    ...(p.reschedules === undefined ? {} : { reschedules: p.reschedules }),
    fold,
  };
  return encodeStatusImage(frame, [{ keys: p.keys, bytes, lengths }]);
}

/** Reads an image back (throws on one it cannot read: a version it does not know, or cut short). */
export function decodeStatusImage(blob: Uint8Array): StatusImage {
  const b = inflateRawSync(blob);
  if (b.readUInt32LE(0) !== VERSION) throw new Error(`status image version ${b.readUInt32LE(0)} unknown`);
  const frameLength = b.readUInt32LE(4);
  const frame = JSON.parse(b.toString("utf8", 8, 8 + frameLength)) as ImageFrame;
  let at = 8 + frameLength;
  const count = b.readUInt32LE(at);
  at += 4;
  const keyLengths = new Uint32Array(count);
  const lengths = new Uint32Array(count);
  let keyTotal = 0;
  let total = 0;
  for (let i = 0; i < count; i++, at += 4) keyTotal += keyLengths[i] = b.readUInt32LE(at);
  for (let i = 0; i < count; i++, at += 4) total += lengths[i] = b.readUInt32LE(at);
  if (at + keyTotal + total !== b.length) throw new Error("status image cut short or overlong");
  return {
    delta: {
      eventSeq: frame.eventSeq,
      removed: [],
      statusKeys: [],
      statuses: [],
      packed: {
        keyBytes: b.subarray(at, at + keyTotal),
        keyLengths,
        bytes: b.subarray(at + keyTotal),
        lengths,
      },
      patches: [],
      history: [],
      downtimesAdded: frame.downtimes,
      downtimesRemoved: [],
      commentsAdded: frame.comments,
      ...(frame.reschedules === undefined ? {} : { reschedules: frame.reschedules }),
    },
    fold: frame.fold,
  };
}
