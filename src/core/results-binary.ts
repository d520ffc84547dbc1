import { isUtf8 } from "node:buffer";
import type { CompactResult } from "./plugin-result.js";

/**
 * A decoder of the protobuf binary form of `svc.v1.ProcessCheckResultsRequest` and of one
 * `svc.v1.ProcessCheckResultRequest` (proto/svc/v1/command_service.proto), for the writer's thread:
 * it turns a request body straight into logged results, with no message objects in between.
 *
 * It decodes exactly what @bufbuild/protobuf's `fromBinary` gives — fields in any order, a
 * singular field repeated (the last one wins, a repeated `checked_at` merges), unknown fields
 * skipped (groups too) — and gives up (undefined) on everything else: malformed input, invalid
 * UTF-8, a known field with another wire type, groups nested deeper than protobuf-es skips, bytes a field would read past its message's end. The
 * caller then decodes the body with protobuf-es itself, so errors and odd corners stay exactly
 * those of protobuf-es. Pinned against protobuf-es by results-binary.test.ts.
 */

/** Thrown inside this module when a body is not one it decodes; never escapes. */
const GIVE_UP = new Error("not decoded here");

// Module state, not re-entrant: one body is decoded at a time, start to end, synchronously.
let buf: Buffer = Buffer.alloc(0);
let pos = 0;

/**
 * The results of a `ProcessCheckResultsRequest` (`batch`) or of one `ProcessCheckResultRequest`,
 * each `[host, service or null, exit status, output, checked at (ms)]`; `now` stands in for an
 * absent `checked_at`. Undefined when the body is not in a form decoded here.
 */
export function decodeResultsBinary(
  body: Uint8Array,
  batch: boolean,
  now: number,
): CompactResult[] | undefined {
  buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  pos = 0;
  try {
    const end = buf.length;
    if (!batch) return [result(end, now)];
    const out: CompactResult[] = [];
    while (pos < end) {
      const tag = readTag(end);
      if (tag === 0x0a) {
        out.push(result(lengthEnd(end), now));
      } else {
        if (tag >>> 3 === 1) throw GIVE_UP;
        skip(tag, end, 1);
      }
    }
    return out;
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    throw e;
  } finally {
    buf = Buffer.alloc(0);
  }
}

/** One ProcessCheckResultRequest whose bytes end at `end`. */
function result(end: number, now: number): CompactResult {
  let host = "";
  let service: string | null = null;
  let exitStatus = 0;
  let output = "";
  let timed = false;
  let seconds = 0;
  let nanos = 0;
  while (pos < end) {
    const tag = readTag(end);
    switch (tag) {
      case 0x0a: // 1 host, length-delimited
        host = readString(end);
        break;
      case 0x12: // 2 service
        service = readString(end);
        break;
      case 0x18: // 3 exit_status, varint
        exitStatus = readInt32(end);
        break;
      case 0x22: // 4 output
        output = readString(end);
        break;
      case 0x2a: {
        // 5 checked_at, a google.protobuf.Timestamp; a repeated one merges into the first.
        const stop = lengthEnd(end);
        timed = true;
        while (pos < stop) {
          const t = readTag(stop);
          if (t === 0x08) seconds = readInt64(stop);
          else if (t === 0x10) nanos = readInt32(stop);
          else if (t >>> 3 === 1 || t >>> 3 === 2) throw GIVE_UP;
          else skip(t, stop, 3);
        }
        break;
      }
      default:
        if (tag >>> 3 <= 5) throw GIVE_UP;
        skip(tag, end, 2);
    }
  }
  // timestampMs of @bufbuild/protobuf/wkt, operation for operation.
  const checkedAt = timed ? seconds * 1000 + Math.round(nanos / 1000000) : now;
  return [host, service, exitStatus, output, checkedAt];
}

/** A varint of at most five bytes as protobuf-es's uint32() reads it (the fifth gives 4 bits). */
function readUint32(end: number): number {
  let value = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= end) throw GIVE_UP;
    const b = buf[pos++] as number;
    value |= (b & 0x7f) << shift;
    if (b < 0x80) return value >>> 0;
  }
  if (pos >= end) throw GIVE_UP;
  const b = buf[pos++] as number;
  if (b >= 0x80) throw GIVE_UP;
  return (value | ((b & 0x0f) << 28)) >>> 0;
}

/** A tag, refused where protobuf-es refuses it (overlong, field 0, wire types 6 and 7). */
function readTag(end: number): number {
  const start = pos;
  const tag = readUint32(end);
  if (pos - start === 5 && (buf[pos - 1] as number) > 0x0f) throw GIVE_UP;
  if (tag >>> 3 === 0 || (tag & 7) > 5) throw GIVE_UP;
  return tag;
}

/** An int32: the low 32 bits of a varint of up to ten bytes (negative numbers take ten). */
function readInt32(end: number): number {
  let value = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= end) throw GIVE_UP;
    const b = buf[pos++] as number;
    value |= (b & 0x7f) << shift;
    if (b < 0x80) return value;
  }
  if (pos >= end) throw GIVE_UP;
  let b = buf[pos++] as number;
  value |= (b & 0x0f) << 28;
  for (let n = 5; b >= 0x80; n++) {
    if (n === 10 || pos >= end) throw GIVE_UP;
    b = buf[pos++] as number;
  }
  return value | 0;
}

/**
 * An int64 as a number: what Number() of protobuf-es's bigint gives. The exact value is
 * hi·2^32 + lo, and one double addition of those two exact terms rounds it as Number() does.
 */
function readInt64(end: number): number {
  let lo = 0;
  let hi = 0;
  let b = 0x80;
  for (let shift = 0; shift < 28 && b >= 0x80; shift += 7) {
    if (pos >= end) throw GIVE_UP;
    b = buf[pos++] as number;
    lo |= (b & 0x7f) << shift;
  }
  if (b >= 0x80) {
    if (pos >= end) throw GIVE_UP;
    b = buf[pos++] as number;
    lo |= (b & 0x0f) << 28;
    hi = (b & 0x70) >> 4;
    for (let shift = 3; shift <= 31 && b >= 0x80; shift += 7) {
      if (pos >= end) throw GIVE_UP;
      b = buf[pos++] as number;
      hi |= (b & 0x7f) << shift;
    }
    if (b >= 0x80) throw GIVE_UP;
  }
  return (hi | 0) * 4294967296 + (lo >>> 0);
}

/** The end of a length-delimited field whose length comes next; within `end`. */
function lengthEnd(end: number): number {
  const len = readUint32(end);
  const stop = pos + len;
  if (stop > end) throw GIVE_UP;
  return stop;
}

/** A proto3 string: strict UTF-8, a byte-order mark kept as text (as protobuf-es decodes it). */
function readString(end: number): string {
  const stop = lengthEnd(end);
  const start = pos;
  pos = stop;
  for (let i = start; i < stop; i++) {
    if ((buf[i] as number) >= 0x80) {
      if (!isUtf8(buf.subarray(start, stop))) throw GIVE_UP;
      return buf.toString("utf8", start, stop);
    }
  }
  return buf.toString("latin1", start, stop);
}

/**
 * protobuf-es's recursion limit, which counts messages and groups alike: the request is at depth 1,
 * a result 2, its timestamp 3, each group one deeper than what holds it; a group at 100 is refused.
 */
const GROUP_DEPTH = 100;

/**
 * Skips an unknown field's value as protobuf-es does, groups included (deprecated, never sent for
 * this message, but a body made of them once came back undecoded and cost the thread serving reads
 * seconds in protobuf-es). A group's end tag must name its field; at GROUP_DEPTH it gives up.
 * `depth` is that of the message the field is in (the request 1, a result 2, a timestamp 3).
 */
function skip(tag: number, end: number, depth: number): void {
  switch (tag & 7) {
    case 0:
      readInt32(end);
      return;
    case 1:
      pos += 8;
      break;
    case 2:
      pos = lengthEnd(end);
      return;
    case 3:
      if (depth >= GROUP_DEPTH) throw GIVE_UP;
      for (;;) {
        const t = readTag(end);
        if ((t & 7) === 4) {
          if (t >>> 3 !== tag >>> 3) throw GIVE_UP;
          return;
        }
        skip(t, end, depth + 1);
      }
    case 5:
      pos += 4;
      break;
    default:
      throw GIVE_UP;
  }
  if (pos > end) throw GIVE_UP;
}
