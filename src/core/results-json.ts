import type { CompactResult } from "./plugin-result.js";

/**
 * A decoder of the protobuf JSON form of `svc.v1.ProcessCheckResultsRequest` and of one
 * `svc.v1.ProcessCheckResultRequest`, as Connect JSON clients send them, for the writer's thread:
 * one pass over the text straight to logged results.
 *
 * It gives what @bufbuild/protobuf's `fromJsonString` gives (Connect's options: unknown fields
 * ignored) for the bodies it decodes — field names in lowerCamelCase or as in the proto file, null
 * for "unset", `exitStatus` as a number or a numeric string, `checkedAt` as an RFC 3339 string —
 * and gives up (undefined) on everything else: invalid JSON, a value of another type, a field set
 * twice, a key it does not know (an unknown field's value would need protobuf-es's duplicate-key
 * scan). The caller then decodes the body with protobuf-es itself, so errors stay exactly those of
 * protobuf-es. Pinned against protobuf-es by results-json.test.ts.
 */

/** Thrown inside this module when a body is not one it decodes; never escapes. */
const GIVE_UP = new Error("not decoded here");

const INT32_MAX = 0x7fffffff;
const INT32_MIN = -0x80000000;
/** The range protobuf-es accepts for a Timestamp in JSON. */
const TIMESTAMP_MS_MIN = Date.parse("0001-01-01T00:00:00Z");
const TIMESTAMP_MS_MAX = Date.parse("9999-12-31T23:59:59Z");
const RFC3339 =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(?:Z|([+-][0-9][0-9]:[0-9][0-9]))$/;

/** Fields of ProcessCheckResultRequest by JSON key: lowerCamelCase and proto names. */
const FIELDS: ReadonlyMap<string, number> = new Map([
  ["host", 1],
  ["service", 2],
  ["exitStatus", 3],
  ["exit_status", 3],
  ["output", 4],
  ["checkedAt", 5],
  ["checked_at", 5],
]);

// Module state, not re-entrant: one text is decoded at a time, start to end, synchronously.
let src = "";
let pos = 0;

/**
 * The results of a `ProcessCheckResultsRequest` (`batch`) or of one `ProcessCheckResultRequest` in
 * JSON (the text as Connect decodes the body: UTF-8, a leading byte-order mark dropped), each
 * `[host, service or null, exit status, output, checked at (ms)]`; `now` stands in for an absent
 * `checkedAt`. Undefined when the text is not in a form decoded here.
 */
export function decodeResultsJson(text: string, batch: boolean, now: number): CompactResult[] | undefined {
  src = text;
  pos = 0;
  try {
    const out: CompactResult[] = [];
    space();
    if (batch) {
      request(out, now);
    } else {
      out.push(result(now));
    }
    space();
    if (pos !== src.length) throw GIVE_UP;
    return out;
  } catch (e) {
    if (e === GIVE_UP) return undefined;
    throw e;
  } finally {
    src = "";
  }
}

/** `{"results": [...]}` (or `null` for the list, or `{}`). */
function request(out: CompactResult[], now: number): void {
  expect(0x7b); // {
  space();
  if (peek() === 0x7d) {
    pos++;
    return;
  }
  let seen = false;
  for (;;) {
    if (readString() !== "results" || seen) throw GIVE_UP;
    seen = true;
    colon();
    if (peek() === 0x6e) {
      literal("null");
    } else {
      expect(0x5b); // [
      space();
      if (peek() === 0x5d) {
        pos++;
      } else {
        for (;;) {
          // A null element is an error for protobuf-es; result() gives up on it.
          out.push(result(now));
          space();
          if (next() === 0x5d) break;
          if (src.charCodeAt(pos - 1) !== 0x2c) throw GIVE_UP;
          space();
        }
      }
    }
    space();
    const c = next();
    if (c === 0x7d) return;
    if (c !== 0x2c) throw GIVE_UP;
    space();
  }
}

/** One ProcessCheckResultRequest object. */
function result(now: number): CompactResult {
  let host = "";
  let service: string | null = null;
  let exitStatus = 0;
  let output = "";
  let checkedAt = now;
  let seen = 0;
  expect(0x7b);
  space();
  if (peek() === 0x7d) {
    pos++;
    return [host, service, exitStatus, output, checkedAt];
  }
  for (;;) {
    const field = FIELDS.get(readString());
    if (field === undefined) throw GIVE_UP;
    // One field set twice — by both of its names, or a duplicate key — is an error for protobuf-es.
    if ((seen & (1 << field)) !== 0) throw GIVE_UP;
    seen |= 1 << field;
    colon();
    const isNull = peek() === 0x6e;
    if (isNull) literal("null");
    switch (field) {
      case 1:
        host = isNull ? "" : stringValue();
        break;
      case 2:
        service = isNull ? null : stringValue();
        break;
      case 3:
        exitStatus = isNull ? 0 : int32Value();
        break;
      case 4:
        output = isNull ? "" : stringValue();
        break;
      default:
        checkedAt = isNull ? now : timestampValue();
    }
    space();
    const c = next();
    if (c === 0x7d) break;
    if (c !== 0x2c) throw GIVE_UP;
    space();
  }
  return [host, service, exitStatus, output, checkedAt];
}

/** A string field's value: only a well-formed string (protobuf-es refuses lone surrogates). */
function stringValue(): string {
  if (peek() !== 0x22) throw GIVE_UP;
  return readString();
}

/** An int32 field's value as protobuf-es reads it: an integral number, or a string holding one. */
function int32Value(): number {
  let value: number;
  const c = peek();
  if (c === 0x22) {
    const s = readString();
    // int32FromJson of protobuf-es: no empty string, no surrounding whitespace, Number() parses.
    if (s === "" || s.trim().length !== s.length) throw GIVE_UP;
    value = Number(s);
  } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
    value = readNumber();
  } else {
    throw GIVE_UP;
  }
  if (!Number.isInteger(value) || value > INT32_MAX || value < INT32_MIN) throw GIVE_UP;
  return value;
}

/** A Timestamp in milliseconds, parsed as protobuf-es parses it and then timestampMs of it. */
function timestampValue(): number {
  if (peek() !== 0x22) throw GIVE_UP;
  const s = readString();
  const fast = utcTimestamp(s);
  if (fast !== undefined) return fast;
  const m = RFC3339.exec(s);
  if (m === null) throw GIVE_UP;
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[8] ? m[8] : "Z"}`);
  if (Number.isNaN(ms) || ms < TIMESTAMP_MS_MIN || ms > TIMESTAMP_MS_MAX) throw GIVE_UP;
  const fraction = m[7];
  const nanos =
    fraction === undefined
      ? 0
      : Number.parseInt(`1${fraction}${"0".repeat(9 - fraction.length)}`, 10) - 1000000000;
  return (ms / 1000) * 1000 + Math.round(nanos / 1000000);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The digits of s from `from` to `to` as a number; NaN if any is not a digit. */
function digitsAt(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = s.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return Number.NaN;
    n = n * 10 + d;
  }
  return n;
}

/**
 * What timestampValue gives, computed directly for the form clients send almost always — a valid
 * date and time in UTC (`2026-01-02T03:04:05.678Z`), year 1000 or later — where Date.UTC equals
 * Date.parse; undefined for anything else (then the general code decides).
 */
function utcTimestamp(s: string): number | undefined {
  const len = s.length;
  if (len < 20 || len > 30 || s.charCodeAt(len - 1) !== 0x5a) return undefined;
  if (s[4] !== "-" || s[7] !== "-" || s[10] !== "T" || s[13] !== ":" || s[16] !== ":") return undefined;
  const year = digitsAt(s, 0, 4);
  const month = digitsAt(s, 5, 7);
  const day = digitsAt(s, 8, 10);
  const hour = digitsAt(s, 11, 13);
  const minute = digitsAt(s, 14, 16);
  const second = digitsAt(s, 17, 19);
  if (
    !(year >= 1000 && month >= 1 && month <= 12 && day >= 1 && hour <= 23 && minute <= 59 && second <= 59)
  ) {
    return undefined;
  }
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number))) return undefined;
  let nanos = 0;
  if (len > 20) {
    // `.` and one to nine digits before the Z.
    if (s[19] !== "." || len === 21) return undefined;
    nanos = digitsAt(s, 20, len - 1) * 10 ** (30 - len);
    if (Number.isNaN(nanos)) return undefined;
  }
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  return (ms / 1000) * 1000 + Math.round(nanos / 1000000);
}

/**
 * A JSON string at the cursor. Without escapes it is a slice of the text; with them JSON.parse
 * decodes the token, and a string that is not well-formed UTF-16 (a lone surrogate escape) gives up.
 */
function readString(): string {
  if (next() !== 0x22) throw GIVE_UP;
  const start = pos;
  let escaped = false;
  for (;;) {
    if (pos >= src.length) throw GIVE_UP;
    const c = src.charCodeAt(pos++);
    if (c === 0x22) break;
    if (c < 0x20) throw GIVE_UP;
    if (c === 0x5c) {
      escaped = true;
      pos++;
    }
  }
  if (!escaped) return src.slice(start, pos - 1);
  let s: string;
  try {
    s = JSON.parse(src.slice(start - 1, pos)) as string;
  } catch {
    throw GIVE_UP;
  }
  // protobuf-es's check for well-formed text: encodeURIComponent refuses lone surrogates.
  try {
    encodeURIComponent(s);
  } catch {
    throw GIVE_UP;
  }
  return s;
}

/** A JSON number token (strict grammar), as JSON.parse gives it. */
function readNumber(): number {
  const start = pos;
  if (peek() === 0x2d) pos++;
  if (peek() === 0x30) {
    pos++;
  } else if (!digits()) {
    throw GIVE_UP;
  }
  if (peek() === 0x2e) {
    pos++;
    if (!digits()) throw GIVE_UP;
  }
  const e = peek();
  if (e === 0x65 || e === 0x45) {
    pos++;
    const sign = peek();
    if (sign === 0x2b || sign === 0x2d) pos++;
    if (!digits()) throw GIVE_UP;
  }
  return Number(src.slice(start, pos));
}

/** Consumes digits; whether there was at least one. */
function digits(): boolean {
  const start = pos;
  for (let c = peek(); c >= 0x30 && c <= 0x39; c = peek()) pos++;
  return pos > start;
}

function literal(word: string): void {
  if (!src.startsWith(word, pos)) throw GIVE_UP;
  pos += word.length;
}

function colon(): void {
  space();
  expect(0x3a);
  space();
}

function expect(c: number): void {
  if (next() !== c) throw GIVE_UP;
}

/** JSON whitespace: space, tab, line feed, carriage return. */
function space(): void {
  for (let c = peek(); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = peek()) pos++;
}

/** The code unit at the cursor; NaN at the end (compares false with everything). */
function peek(): number {
  return src.charCodeAt(pos);
}

function next(): number {
  return src.charCodeAt(pos++);
}
