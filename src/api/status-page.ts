import { create } from "@bufbuild/protobuf";
import { WireType } from "@bufbuild/protobuf/wire";
import type { ObjectIndex } from "../store/object-index.js";
import type { Projection } from "../store/projection.js";
import { createWireWriter, WIRE_VARINT, type WireWriter } from "../store/wire.js";
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
/** ListStatusResponse.statuses. */
const STATUSES = 1;

const writer = createWireWriter(256 * 1024);
const scratch = createWireWriter(4096);

/**
 * Each object's configured fields, encoded once per config: `head` is host and service (fields
 * 1–2), `tail` check type and labels (17–18). Made when a page first shows the object and kept
 * with the index (a reload makes a new index, and so new parts); reading them back costs a third
 * of encoding them from the config objects every time, which is spread all over the heap.
 */
interface ConfigParts {
  readonly head: (string | undefined)[];
  readonly tail: (string | undefined)[];
}
const partsByIndex = new WeakMap<ObjectIndex, ConfigParts>();

function configParts(index: ObjectIndex): ConfigParts {
  let parts = partsByIndex.get(index);
  if (parts === undefined) {
    parts = { head: new Array(index.size), tail: new Array(index.size) };
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
  parts.head[p] = w.takeLatin1();
  w.string(CHECK_TYPE, (service ?? host).check.type);
  // The effective labels (a service's host's, overlaid by its own) in the order of the merged
  // object — host keys first, then keys only the service has — without building that object.
  const own = service?.labels;
  for (const k in host.labels) label(w, k, own?.[k] ?? (host.labels[k] as string));
  if (own !== undefined) for (const k in own) if (!(k in host.labels)) label(w, k, own[k] as string);
  parts.tail[p] = w.takeLatin1();
}

/**
 * A ListStatus response whose `statuses` are spliced from the projection's encoded records instead
 * of being built as messages: each ObjectStatus is its configured fields (host, service), the
 * record's bytes (fields 3–16, src/store/status-codec.ts), then check type and labels — the bytes
 * protobuf-es would write for the same message, in field order. The statuses travel as one unknown
 * field of the response, which binary serialization writes out unchanged (JSON serialization does
 * not: use this for the binary wire formats only).
 */
export function encodedStatusPage(
  index: ObjectIndex,
  projection: Pick<Projection, "writeStatus">,
  positions: readonly number[],
  nextPageToken: string,
  totalSize: number,
): ListStatusResponse {
  const parts = configParts(index);
  const w = writer;
  w.reset();
  for (const p of positions) {
    if (parts.head[p] === undefined) encodeParts(index, parts, p);
    const el = w.beginLen(STATUSES);
    w.latin1(parts.head[p] as string);
    if (!projection.writeStatus(index.keyAt(p), w)) {
      field(w, STATE, STATE_PENDING);
      field(w, STATE_TYPE, STATE_TYPE_HARD);
      field(w, ATTEMPT, 1);
      field(w, MAX_ATTEMPTS, (index.serviceAt(p) ?? index.hostAt(p)).check.maxAttempts);
    }
    w.latin1(parts.tail[p] as string);
    w.endLen(el);
  }
  const bytes = w.takeBuffer();
  const msg = create(ListStatusResponseSchema, { nextPageToken, totalSize });
  if (bytes.length > 0) {
    // An unknown field is written as its tag followed by `data`; the writer already wrote the
    // first element's tag, so data starts after it (the later elements carry their own tags).
    msg.$unknown = [{ no: STATUSES, wireType: WireType.LengthDelimited, data: bytes.subarray(1) }];
  }
  return msg;
}

function label(w: WireWriter, k: string, v: string): void {
  const m = w.beginLen(LABELS);
  w.string(1, k);
  w.string(2, v);
  w.endLen(m);
}

function field(w: WireWriter, no: number, n: number): void {
  if (n === 0) return;
  w.tag(no, WIRE_VARINT);
  w.varint(n);
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
