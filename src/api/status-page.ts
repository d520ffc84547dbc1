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
  projection: Pick<Projection, "encodedStatus">,
  positions: readonly number[],
  nextPageToken: string,
  totalSize: number,
): ListStatusResponse {
  const w = writer;
  w.reset();
  for (const p of positions) {
    const host = index.hostAt(p);
    const service = index.serviceAt(p);
    const encoded = projection.encodedStatus(index.keyAt(p));
    const el = w.beginLen(STATUSES);
    w.string(HOST, host.name);
    if (service !== undefined) w.string(SERVICE, service.name);
    const check = (service ?? host).check;
    if (encoded !== undefined) {
      w.latin1(encoded);
    } else {
      field(w, STATE, STATE_PENDING);
      field(w, STATE_TYPE, STATE_TYPE_HARD);
      field(w, ATTEMPT, 1);
      field(w, MAX_ATTEMPTS, check.maxAttempts);
    }
    w.string(CHECK_TYPE, check.type);
    // The effective labels (a service's host's, overlaid by its own) in the order of the merged
    // object — host keys first, then keys only the service has — without building that object.
    const own = service?.labels;
    for (const k in host.labels) label(w, k, own?.[k] ?? (host.labels[k] as string));
    if (own !== undefined) for (const k in own) if (!(k in host.labels)) label(w, k, own[k] as string);
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
