import { create } from "@bufbuild/protobuf";
import { WireType } from "@bufbuild/protobuf/wire";
import type { ObjectIndex } from "../store/object-index.js";
import type { Projection } from "../store/projection.js";
import { createWireWriter, varintSize, type WireWriter } from "../store/wire.js";
import { type ListStatusResponse, ListStatusResponseSchema } from "./gen/svc/v1/query_service_pb.js";

/** ObjectStatus fields that come from the configuration, not from the record. */
const HOST = 1;
const SERVICE = 2;
const STATE = 3;
const STATE_TYPE = 4;
const ATTEMPT = 5;
const MAX_ATTEMPTS = 6;
const CHECK_TYPE = 17;
const LABELS = 18;
const STATE_PENDING = 1;
const STATE_TYPE_HARD = 2;
/** ListStatusResponse fields. */
const STATUSES = 1;
const NEXT_PAGE_TOKEN = 2;
const TOTAL_SIZE = 3;
const TAG_STATUSES = (STATUSES << 3) | WireType.LengthDelimited;

/** The record an object without a result has, before its max attempts: state, state type, attempt. */
const PENDING = [
  (STATE << 3) | 0,
  STATE_PENDING,
  (STATE_TYPE << 3) | 0,
  STATE_TYPE_HARD,
  (ATTEMPT << 3) | 0,
  1,
];
const TAG_MAX_ATTEMPTS = (MAX_ATTEMPTS << 3) | 0;

const scratch = createWireWriter(4096);

/**
 * Each object's configured fields, encoded once per config: a head (host and service, fields 1–2)
 * and right after it a tail (check type and labels, 17–18), in one buffer outside the JavaScript
 * heap. Made when a page first shows the object and kept with the index (a reload makes a new
 * index, and so new parts); copying them costs a fraction of encoding them from the config objects,
 * which are spread all over the heap.
 */
interface ConfigParts {
  /** A plain Uint8Array: its subarrays cost less than a Buffer's. */
  bytes: Uint8Array;
  used: number;
  /** Per position: where the head starts in `bytes`, -1 until encoded. */
  readonly start: Int32Array;
  readonly headLen: Int32Array;
  readonly tailLen: Int32Array;
  /**
   * Per position, the record handle of the object in `refsOf` (-1: not known), valid while that
   * projection's statusRefEpoch is `refsEpoch`: a lookup by key costs more than the rest of the
   * splice of a record, and handles only change when objects lose their records.
   */
  readonly refs: Int32Array;
  refsOf: PageSource | undefined;
  refsEpoch: number;
}
const partsByIndex = new WeakMap<ObjectIndex, ConfigParts>();

function configParts(index: ObjectIndex): ConfigParts {
  let parts = partsByIndex.get(index);
  if (parts === undefined) {
    parts = {
      bytes: new Uint8Array(Math.max(4096, Math.min(index.size * 80, 1 << 26))),
      used: 0,
      start: new Int32Array(index.size).fill(-1),
      headLen: new Int32Array(index.size),
      tailLen: new Int32Array(index.size),
      refs: new Int32Array(index.size),
      refsOf: undefined,
      refsEpoch: 0,
    };
    partsByIndex.set(index, parts);
  }
  return parts;
}

function encodeParts(index: ObjectIndex, parts: ConfigParts, p: number): void {
  const host = index.hostAt(p);
  const service = index.serviceAt(p);
  const w = scratch;
  w.reset();
  w.string(HOST, host.name);
  if (service !== undefined) w.string(SERVICE, service.name);
  const headLen = w.length;
  w.string(CHECK_TYPE, (service ?? host).check.type);
  // The effective labels (a service's host's, overlaid by its own) in the order of the merged
  // object — host keys first, then keys only the service has — without building that object.
  const own = service?.labels;
  for (const k in host.labels) label(w, k, own?.[k] ?? (host.labels[k] as string));
  if (own !== undefined) for (const k in own) if (!(k in host.labels)) label(w, k, own[k] as string);
  const encoded = w.takeBuffer();
  if (parts.used + encoded.length > parts.bytes.length) {
    const bigger = new Uint8Array(Math.max(parts.bytes.length * 2, parts.used + encoded.length));
    bigger.set(parts.bytes.subarray(0, parts.used));
    parts.bytes = bigger;
  }
  parts.bytes.set(encoded, parts.used);
  parts.start[p] = parts.used;
  parts.headLen[p] = headLen;
  parts.tailLen[p] = encoded.length - headLen;
  parts.used += encoded.length;
}

/** Per row of the page being written: the record's handle (-1: PENDING) and the element's length. */
let rowRefs = new Int32Array(1024);
let lens = new Int32Array(1024);

/**
 * The bytes of a ListStatusResponse whose `statuses` are spliced from the projection's encoded
 * records instead of being built as messages: each ObjectStatus is its configured fields (host,
 * service), the record's bytes (fields 3–16, src/store/status-codec.ts), then check type and labels,
 * then the record's `checked_by` when it has one (held first in the record) — byte for byte what
 * protobuf-es writes for the same message, in field order — followed by
 * `next_page_token` and `total_size`. The message starts `prefix` bytes into the buffer (room for a
 * gRPC envelope's header, say), which is allocated once at its exact size: every length is known
 * before a byte is written, so nothing is moved or copied twice.
 */
export function statusPageBytes(
  index: ObjectIndex,
  projection: PageSource,
  positions: readonly number[],
  nextPageToken: string,
  totalSize: number,
  prefix = 0,
): Buffer {
  const parts = configParts(index);
  const n = positions.length;
  if (rowRefs.length < n) {
    rowRefs = new Int32Array(n);
    lens = new Int32Array(n);
  }
  const epoch = projection.statusRefEpoch();
  if (parts.refsOf !== projection || parts.refsEpoch !== epoch) {
    parts.refs.fill(-1);
    parts.refsOf = projection;
    parts.refsEpoch = epoch;
  }
  const known = parts.refs;
  let size = 0;
  for (let i = 0; i < n; i++) {
    const p = positions[i] as number;
    if ((parts.start[p] as number) < 0) encodeParts(index, parts, p);
    let ref = known[p] as number;
    if (ref < 0) {
      ref = projection.statusRef(index.keyAt(p));
      known[p] = ref;
    }
    const record =
      ref < 0
        ? PENDING.length + maxAttemptsLength((index.serviceAt(p) ?? index.hostAt(p)).check.maxAttempts)
        : projection.statusLength(ref);
    const len = (parts.headLen[p] as number) + record + (parts.tailLen[p] as number);
    rowRefs[i] = ref;
    lens[i] = len;
    size += 1 + varintSize(len) + len;
  }
  const token = nextPageToken === "" ? 0 : Buffer.byteLength(nextPageToken);
  if (token > 0) size += 1 + varintSize(token) + token;
  if (totalSize !== 0) size += 1 + varintSize(totalSize);

  const out = Buffer.allocUnsafe(prefix + size);
  const src = parts.bytes;
  let at = prefix;
  for (let i = 0; i < n; i++) {
    const p = positions[i] as number;
    const ref = rowRefs[i] as number;
    out[at++] = TAG_STATUSES;
    at = varint(out, at, lens[i] as number);
    const from = parts.start[p] as number;
    const headEnd = from + (parts.headLen[p] as number);
    at = copyBytes(src, from, headEnd, out, at);
    if (ref >= 0) {
      // A record that names the worker that checked it holds that field (19) first: it goes after
      // the configured tail (17–18), where field order puts it.
      const moved = projection.statusCheckedByLength(ref);
      if (moved > 0) {
        at = projection.copyStatus(ref, out, at, moved, projection.statusLength(ref));
        at = copyBytes(src, headEnd, headEnd + (parts.tailLen[p] as number), out, at);
        at = projection.copyStatus(ref, out, at, 0, moved);
        continue;
      }
      at = projection.copyStatus(ref, out, at);
    } else {
      for (const b of PENDING) out[at++] = b;
      const max = (index.serviceAt(p) ?? index.hostAt(p)).check.maxAttempts;
      if (max !== 0) {
        out[at++] = TAG_MAX_ATTEMPTS;
        at = varint(out, at, max);
      }
    }
    at = copyBytes(src, headEnd, headEnd + (parts.tailLen[p] as number), out, at);
  }
  if (token > 0) {
    out[at++] = (NEXT_PAGE_TOKEN << 3) | WireType.LengthDelimited;
    at = varint(out, at, token);
    at += out.write(nextPageToken, at, "utf8");
  }
  if (totalSize !== 0) {
    out[at++] = (TOTAL_SIZE << 3) | WireType.Varint;
    at = varint(out, at, totalSize);
  }
  return out;
}

/** What a page is read from. */
type PageSource = Pick<
  Projection,
  "statusRef" | "statusRefEpoch" | "statusLength" | "copyStatus" | "statusCheckedByLength"
>;

/**
 * The ListStatus response as a message for the Connect router: the statuses spliced as by
 * `statusPageBytes` travel as one unknown field of the response, which binary serialization writes
 * out unchanged (JSON serialization does not: use this for the binary wire formats only).
 */
export function encodedStatusPage(
  index: ObjectIndex,
  projection: PageSource,
  positions: readonly number[],
  nextPageToken: string,
  totalSize: number,
): ListStatusResponse {
  const bytes = statusPageBytes(index, projection, positions, "", 0);
  const msg = create(ListStatusResponseSchema, { nextPageToken, totalSize });
  if (bytes.length > 0) {
    // An unknown field is written as its tag followed by `data`; the bytes start with the first
    // element's tag, so data starts after it (the later elements carry their own tags).
    msg.$unknown = [{ no: STATUSES, wireType: WireType.LengthDelimited, data: bytes.subarray(1) }];
  }
  return msg;
}

/**
 * Copies bytes [from, to) of `src` into `out` at `at`; returns where they end. Short runs go byte by
 * byte: a view for TypedArray#set is an allocation, and three per object add up to a quarter of a
 * megabyte of garbage per page.
 */
function copyBytes(src: Uint8Array, from: number, to: number, out: Uint8Array, at: number): number {
  if (to - from > 64) {
    out.set(src.subarray(from, to), at);
    return at + to - from;
  }
  while (from < to) out[at++] = src[from++] as number;
  return at;
}

function maxAttemptsLength(n: number): number {
  return n === 0 ? 0 : 1 + varintSize(n);
}

/** Writes an unsigned varint (below 2^31) at `at`; returns where it ends. */
function varint(out: Buffer, at: number, n: number): number {
  while (n >= 128) {
    out[at++] = (n & 127) | 128;
    n >>>= 7;
  }
  out[at++] = n;
  return at;
}

function label(w: WireWriter, k: string, v: string): void {
  const m = w.beginLen(LABELS);
  w.string(1, k);
  w.string(2, v);
  w.endLen(m);
}

/**
 * Whether a request's content type is one of the binary (protobuf) wire formats: gRPC, gRPC-Web
 * and Connect with `+proto` or no codec suffix. Anything else (JSON, or a type this does not know)
 * gets messages built field by field.
 */
export function isBinaryContentType(contentType: string | null): boolean {
  if (contentType === null) return false;
  return /^application\/(?:grpc(?:-web)?(?:\+proto)?|proto)(?:;|$)/i.test(contentType.trim());
}
