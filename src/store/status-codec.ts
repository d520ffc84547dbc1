import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import type { PerfDatum } from "../model/check-result.js";
import { type DisabledFields, disabledFields } from "../model/object-flags.js";
import type { ObjectState, StateType } from "../model/state.js";
import type { AckRecord, StatusRecord } from "./records.js";
import {
  createWireWriter,
  varintSize,
  WIRE_FIXED64,
  WIRE_LEN,
  WIRE_VARINT,
  type WireWriter,
} from "./wire.js";

/**
 * How the projection holds a status record: the record's fields in protobuf wire format, as the
 * fields 3–16 of `svc.v1.ObjectStatus` (proto/svc/v1/query_service.proto) in field order, kept as
 * a latin1 string (one char per byte). A string costs a sixth of the object graph it replaces and
 * is opaque to the garbage collector; and because a repeated message field is the concatenation of
 * its elements, the API builds a ListStatus page by splicing these bytes between each object's
 * configured fields (host, service before; check type, labels after) instead of building messages.
 * src/api/status-page.test.ts pins the encoding to the generated schema.
 *
 * Field 19 (`checked_by`, the zone worker that ran the last check) comes after the configured
 * fields 17–18 in a message, so a record that has one holds it *first*, where its length can be
 * read from the first bytes alone (`checkedByLength`; the projection's arena keeps it beside the
 * record): the splice copies the rest of the record, the configured tail, then these bytes. A record without it is as before, so records logged and
 * snapshotted before the field existed read the same (checked by ""). The switches an operator
 * turned off (fields 20–23, SetObjectFlags) follow it at the front the same way, for the same
 * reason; `checkedByLength` counts them with it.
 *
 * Times are whole milliseconds (a Timestamp of seconds and nanos that are a multiple of 10^6), so
 * encode(decode(bytes)) is bytes.
 */
export type EncodedStatus = string;

/** svc.v1.State numbers. */
const STATE_NUMBER: Readonly<Record<ObjectState, number>> = {
  PENDING: 1,
  OK: 2,
  WARNING: 3,
  CRITICAL: 4,
  UNKNOWN: 5,
  UP: 6,
  DOWN: 7,
  UNREACHABLE: 8,
};
const STATE_OF_NUMBER: readonly (ObjectState | undefined)[] = [
  undefined,
  "PENDING",
  "OK",
  "WARNING",
  "CRITICAL",
  "UNKNOWN",
  "UP",
  "DOWN",
  "UNREACHABLE",
];
/** svc.v1.StateType numbers. */
const STATE_TYPE_NUMBER: Readonly<Record<StateType, number>> = { SOFT: 1, HARD: 2 };

/** ObjectStatus field numbers (the ones a record carries). */
const F = {
  state: 3,
  stateType: 4,
  attempt: 5,
  maxAttempts: 6,
  output: 7,
  longOutput: 8,
  perfdata: 9,
  lastCheck: 10,
  lastStateChange: 11,
  lastHardStateChange: 12,
  flapping: 13,
  flapPercent: 14,
  acknowledgement: 15,
  inDowntime: 16,
  checkedBy: 19,
  activeChecksDisabled: 20,
  passiveChecksDisabled: 21,
  notificationsDisabled: 22,
  flapDetectionDisabled: 23,
} as const;

/** The first tag byte of the switch fields 20–23 (varint, 1), each two tag bytes and a 1. */
const SWITCH_TAGS_0: readonly number[] = [20, 21, 22, 23].map(
  (f) => (((f << 3) | WIRE_VARINT) & 0x7f) | 0x80,
);
const SWITCH_TAG_1 = (20 << 3) >>> 7;

/** Field 19's tag (length-delimited) as it is written: two varint bytes. */
const CHECKED_BY_TAG_0 = (((F.checkedBy << 3) | WIRE_LEN) & 0x7f) | 0x80;
const CHECKED_BY_TAG_1 = ((F.checkedBy << 3) | WIRE_LEN) >>> 7;

/** What a status record is made of, field by field (a StatusRecord, or the parts of an event). */
export interface StatusFields extends DisabledFields {
  readonly state: ObjectState;
  readonly stateType: StateType;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly output: string;
  readonly longOutput: string;
  readonly perfdata: readonly PerfDatum[];
  /** Absent or 0: not set. */
  readonly lastCheck?: number | undefined;
  readonly lastStateChange?: number | undefined;
  readonly lastHardStateChange?: number | undefined;
  readonly flapping: boolean;
  readonly flapPercent: number;
  readonly acknowledgement?: AckRecord | null | undefined;
  readonly inDowntime: boolean;
  /** The zone worker that ran the last check; absent or "": this server ran it, or it was passive. */
  readonly checkedBy?: string | undefined;
}

const shared = createWireWriter();

/** The encoding of a record's fields. */
export function encodeStatus(r: StatusFields): EncodedStatus {
  return encodeStatusOf(r, r, r.checkedBy);
}

/** What of a record comes from the check result rather than the object's state. */
export type OutputFields = Pick<StatusFields, "output" | "longOutput" | "perfdata">;

/**
 * The encoding of a record whose state fields are in `s` and whose output fields are in `o` — an
 * event's status and its result — without an object that joins them (the fold encodes one per
 * result); `checkedBy` is the result's executor.
 */
export function encodeStatusOf(
  s: Omit<StatusFields, keyof OutputFields | "checkedBy">,
  o: OutputFields,
  checkedBy?: string,
): EncodedStatus {
  const w = shared;
  w.reset();
  // First, not in field order: see EncodedStatus.
  if (checkedBy !== undefined && checkedBy !== "") w.string(F.checkedBy, checkedBy);
  if (s.activeChecksDisabled === true) uint(w, F.activeChecksDisabled, 1);
  if (s.passiveChecksDisabled === true) uint(w, F.passiveChecksDisabled, 1);
  if (s.notificationsDisabled === true) uint(w, F.notificationsDisabled, 1);
  if (s.flapDetectionDisabled === true) uint(w, F.flapDetectionDisabled, 1);
  uint(w, F.state, STATE_NUMBER[s.state]);
  uint(w, F.stateType, STATE_TYPE_NUMBER[s.stateType]);
  uint(w, F.attempt, s.attempt);
  uint(w, F.maxAttempts, s.maxAttempts);
  if (o.output !== "") w.string(F.output, o.output);
  if (o.longOutput !== "") w.string(F.longOutput, o.longOutput);
  for (const p of o.perfdata) {
    const m = w.beginLen(F.perfdata);
    if (p.label !== "") w.string(1, p.label);
    double(w, 2, p.value);
    if (p.uom !== "") w.string(3, p.uom);
    if (p.warn !== "") w.string(4, p.warn);
    if (p.crit !== "") w.string(5, p.crit);
    if (p.min !== undefined) {
      w.tag(6, WIRE_FIXED64);
      w.double(p.min);
    }
    if (p.max !== undefined) {
      w.tag(7, WIRE_FIXED64);
      w.double(p.max);
    }
    w.endLen(m);
  }
  timestamp(w, F.lastCheck, s.lastCheck);
  timestamp(w, F.lastStateChange, s.lastStateChange);
  timestamp(w, F.lastHardStateChange, s.lastHardStateChange);
  if (s.flapping) uint(w, F.flapping, 1);
  double(w, F.flapPercent, s.flapPercent);
  const ack = s.acknowledgement;
  if (ack != null) {
    const m = w.beginLen(F.acknowledgement);
    if (ack.author !== "") w.string(1, ack.author);
    if (ack.comment !== "") w.string(2, ack.comment);
    if (ack.sticky) uint(w, 3, 1);
    timestamp(w, 4, ack.setAt);
    w.endLen(m);
  }
  if (s.inDowntime) uint(w, F.inDowntime, 1);
  return w.takeLatin1();
}

/**
 * How many of a record's first bytes (`bytes[start..start + len)`) are the fields a ListStatus page
 * puts after the object's configured fields: `checked_by` (tag, length and text) and the switches
 * an operator turned off (20–23, three bytes each); 0 when the record has none. Only the first few
 * bytes are read.
 */
export function checkedByLength(bytes: Uint8Array, start: number, len: number): number {
  let i = 0;
  if (len >= 3 && bytes[start] === CHECKED_BY_TAG_0 && bytes[start + 1] === CHECKED_BY_TAG_1) {
    let n = 0;
    i = 2;
    for (let shift = 0; i < len; shift += 7) {
      const b = bytes[start + i++] as number;
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
    }
    i = Math.min(len, i + n);
  }
  while (
    i + 3 <= len &&
    SWITCH_TAGS_0.includes(bytes[start + i] as number) &&
    bytes[start + i + 1] === SWITCH_TAG_1
  ) {
    i += 3;
  }
  return i;
}

/**
 * The switches turned off (a bit each, src/model/object-flags.ts) among a record's first `len`
 * bytes as `checkedByLength` counts them: the checked_by field skipped, then fields 20–23.
 */
export function disabledMaskAt(bytes: Uint8Array, len: number): number {
  let i = 0;
  if (len >= 3 && bytes[0] === CHECKED_BY_TAG_0 && bytes[1] === CHECKED_BY_TAG_1) {
    let n = 0;
    i = 2;
    for (let shift = 0; i < len; shift += 7) {
      const b = bytes[i++] as number;
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
    }
    i += n;
  }
  let mask = 0;
  for (; i + 3 <= len; i += 3) {
    const k = SWITCH_TAGS_0.indexOf(bytes[i] as number);
    if (k < 0 || bytes[i + 1] !== SWITCH_TAG_1) break;
    if (bytes[i + 2] === 1) mask |= 1 << k;
  }
  return mask;
}

/** Proto3 implicit presence: zero is not written. */
function uint(w: WireWriter, field: number, n: number): void {
  if (n === 0) return;
  w.tag(field, WIRE_VARINT);
  w.varint(n);
}

function double(w: WireWriter, field: number, n: number): void {
  if (n === 0) return;
  w.tag(field, WIRE_FIXED64);
  w.double(n);
}

/** An optional Timestamp; ms since the epoch, whole milliseconds. Absent or 0: not set. */
function timestamp(w: WireWriter, field: number, ms: number | undefined): void {
  if (ms === undefined || ms === 0) return;
  const whole = Math.floor(ms);
  const seconds = Math.floor(whole / 1000);
  const nanos = (whole - seconds * 1000) * 1_000_000;
  // A Timestamp is at most 2 tags and 15 bytes of varints: its length is always one byte.
  w.tag(field, WIRE_LEN);
  w.varint((seconds === 0 ? 0 : 1 + varintSize(seconds)) + (nanos === 0 ? 0 : 1 + varintSize(nanos)));
  uint(w, 1, seconds);
  uint(w, 2, nanos);
}

/** The record of `key` from its encoding. */
export function decodeStatus(key: string, bytes: EncodedStatus): StatusRecord {
  const r = new BinaryReader(Buffer.from(bytes, "latin1"));
  let state: ObjectState = "PENDING";
  let stateType: StateType = "HARD";
  let attempt = 0;
  let maxAttempts = 0;
  let output = "";
  let longOutput = "";
  const perfdata: PerfDatum[] = [];
  let lastCheck: number | undefined;
  let lastStateChange: number | undefined;
  let lastHardStateChange: number | undefined;
  let flapping = false;
  let flapPercent = 0;
  let acknowledgement: AckRecord | undefined;
  let inDowntime = false;
  let checkedBy = "";
  let disabled = 0;
  while (r.pos < r.len) {
    const [field, wt] = r.tag();
    switch (field) {
      case F.state:
        state = STATE_OF_NUMBER[r.uint32()] ?? "PENDING";
        break;
      case F.stateType:
        stateType = r.uint32() === 1 ? "SOFT" : "HARD";
        break;
      case F.attempt:
        attempt = r.uint32();
        break;
      case F.maxAttempts:
        maxAttempts = r.uint32();
        break;
      case F.output:
        output = r.string();
        break;
      case F.longOutput:
        longOutput = r.string();
        break;
      case F.perfdata:
        perfdata.push(readPerfDatum(new BinaryReader(r.bytes())));
        break;
      case F.lastCheck:
        lastCheck = readTimestamp(new BinaryReader(r.bytes()));
        break;
      case F.lastStateChange:
        lastStateChange = readTimestamp(new BinaryReader(r.bytes()));
        break;
      case F.lastHardStateChange:
        lastHardStateChange = readTimestamp(new BinaryReader(r.bytes()));
        break;
      case F.flapping:
        flapping = r.bool();
        break;
      case F.flapPercent:
        flapPercent = r.double();
        break;
      case F.acknowledgement:
        acknowledgement = readAck(new BinaryReader(r.bytes()));
        break;
      case F.inDowntime:
        inDowntime = r.bool();
        break;
      case F.checkedBy:
        checkedBy = r.string();
        break;
      case F.activeChecksDisabled:
      case F.passiveChecksDisabled:
      case F.notificationsDisabled:
      case F.flapDetectionDisabled:
        if (r.bool()) disabled |= 1 << (field - F.activeChecksDisabled);
        break;
      default:
        r.skip(wt, field);
    }
  }
  return {
    key,
    state,
    stateType,
    attempt,
    maxAttempts,
    output,
    longOutput,
    perfdata,
    ...(lastCheck === undefined ? {} : { lastCheck }),
    ...(lastStateChange === undefined ? {} : { lastStateChange }),
    ...(lastHardStateChange === undefined ? {} : { lastHardStateChange }),
    flapping,
    flapPercent,
    ...(acknowledgement === undefined ? {} : { acknowledgement }),
    inDowntime,
    ...(checkedBy === "" ? {} : { checkedBy }),
    ...disabledFields(disabled),
  };
}

function readPerfDatum(r: BinaryReader): PerfDatum {
  let label = "";
  let value = 0;
  let uom = "";
  let warn = "";
  let crit = "";
  let min: number | undefined;
  let max: number | undefined;
  while (r.pos < r.len) {
    const [field, wt] = r.tag();
    if (field === 1 && wt === WireType.LengthDelimited) label = r.string();
    else if (field === 2) value = r.double();
    else if (field === 3) uom = r.string();
    else if (field === 4) warn = r.string();
    else if (field === 5) crit = r.string();
    else if (field === 6) min = r.double();
    else if (field === 7) max = r.double();
    else r.skip(wt, field);
  }
  return {
    label,
    value,
    uom,
    warn,
    crit,
    ...(min === undefined ? {} : { min }),
    ...(max === undefined ? {} : { max }),
  };
}

function readTimestamp(r: BinaryReader): number {
  let seconds = 0;
  let nanos = 0;
  while (r.pos < r.len) {
    const [field, wt] = r.tag();
    if (field === 1) seconds = Number(r.int64());
    else if (field === 2) nanos = r.int32();
    else r.skip(wt, field);
  }
  return seconds * 1000 + Math.floor(nanos / 1_000_000);
}

function readAck(r: BinaryReader): AckRecord {
  let author = "";
  let comment = "";
  let sticky = false;
  let setAt = 0;
  while (r.pos < r.len) {
    const [field, wt] = r.tag();
    if (field === 1) author = r.string();
    else if (field === 2) comment = r.string();
    else if (field === 3) sticky = r.bool();
    else if (field === 4 && wt === WIRE_LEN) setAt = readTimestamp(new BinaryReader(r.bytes()));
    else r.skip(wt, field);
  }
  return { author, comment, sticky, setAt };
}
