import type { AuditEntry } from "./record.js";

/** The most bytes (UTF-8) an audit record's text field keeps, the mark of a cut included. */
export const AUDIT_FIELD_MAX_BYTES = 1024;

/** The shortest a string inside `commandJson` is cut to before the document is given up on. */
const MIN_JSON_STRING_BYTES = 32;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** What ends a cut field: how long the whole was, in bytes. */
const mark = (bytes: number) => `…[cut, ${bytes} bytes]`;

/**
 * `s` when it fits in `max` bytes, else its longest prefix (whole characters) that leaves room for
 * the mark saying it was cut and how long it was: `…[cut, 70060 bytes]`.
 */
export function capText(s: string, max = AUDIT_FIELD_MAX_BYTES): string {
  // Cheap first: no string of at most max/3 UTF-16 units can exceed max bytes.
  if (s.length * 3 <= max) return s;
  const bytes = utf8.encode(s);
  if (bytes.length <= max) return s;
  const suffix = mark(bytes.length);
  let end = Math.max(0, max - utf8.encode(suffix).length);
  // Back to the start of a character: never half a UTF-8 sequence.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return fromUtf8.decode(bytes.subarray(0, end)) + suffix;
}

/**
 * A `commandJson` that fits in `max` bytes and still parses: the strings inside are cut (each
 * marked as capText marks it), shorter and shorter until the document fits. A document that does
 * not fit even so (or is not JSON) is cut as text.
 */
export function capJson(json: string, max = AUDIT_FIELD_MAX_BYTES): string {
  if (json.length * 3 <= max || utf8.encode(json).length <= max) return json;
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    return capText(json, max);
  }
  for (let limit = max; limit >= MIN_JSON_STRING_BYTES; limit = Math.floor(limit / 2)) {
    const out = JSON.stringify(capStrings(doc, limit));
    if (utf8.encode(out).length <= max) return out;
  }
  return capText(json, max);
}

function capStrings(v: unknown, limit: number): unknown {
  if (typeof v === "string") return capText(v, limit);
  if (Array.isArray(v)) return v.map((x) => capStrings(x, limit));
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [capText(k, limit), capStrings(x, limit)]));
  }
  return v;
}

/**
 * The entry as the audit log keeps it: every text field at most AUDIT_FIELD_MAX_BYTES, cut with a
 * mark that says so (docs/auth.md, "Audit records"). Whatever a sender puts in a line or a request,
 * a record stays small.
 */
export function capEntry(e: AuditEntry): AuditEntry {
  const name = e.principal === undefined ? undefined : capText(e.principal.name);
  const peer = capText(e.peer);
  const rpc = capText(e.rpc);
  const commandJson = capJson(e.commandJson);
  const reason = capText(e.reason);
  // The common case, at the rate of API calls: nothing to cut, nothing copied.
  if (
    name === e.principal?.name &&
    peer === e.peer &&
    rpc === e.rpc &&
    commandJson === e.commandJson &&
    reason === e.reason
  )
    return e;
  return {
    at: e.at,
    source: e.source,
    ...(e.principal === undefined || name === undefined
      ? {}
      : { principal: { name, role: e.principal.role } }),
    peer,
    rpc,
    commandJson,
    outcome: e.outcome,
    reason,
  };
}
