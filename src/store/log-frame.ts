/**
 * The frame both messages of a replicated command log are written in (src/store/replicated-log.ts):
 * four magic bytes naming the kind ("LKC1" a group, "LKS1" a snapshot), a 32-bit header length, a
 * JSON header with the format version, then the parts as they are. Reading checks all of that and
 * answers with the header and where the parts begin; an UnreadableGroupError says what is wrong,
 * naming the kind.
 */

/** A message that this build cannot read: the replica stops applying (it never skips one). */
export class UnreadableGroupError extends Error {
  override readonly name = "UnreadableGroupError";
}

/** The version of the log's formats this build writes and reads. */
export const LOG_FORMAT_VERSION = 1;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `magic`, the header (with `v` set to the format version) and the parts, in one buffer. */
export function writeFrame(
  magic: number,
  header: Record<string, unknown>,
  parts: readonly Uint8Array[],
): Uint8Array {
  const h = encoder.encode(JSON.stringify({ v: LOG_FORMAT_VERSION, ...header }));
  let size = 8 + h.length;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, magic);
  view.setUint32(4, h.length);
  out.set(h, 8);
  let at = 8 + h.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The header of a frame of `magic` and the offset of its first part. `kind` names the message in
 * errors ("group", "snapshot"); `foreign` is the error for bytes that are not such a frame.
 */
export function readFrame(
  bytes: Uint8Array,
  magic: number,
  kind: string,
  foreign: string,
): { readonly header: Record<string, unknown>; readonly at: number } {
  if (bytes.length < 8) throw new UnreadableGroupError(`a ${kind} of ${bytes.length} bytes is too short`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0) !== magic) throw new UnreadableGroupError(foreign);
  const headerLength = view.getUint32(4);
  if (8 + headerLength > bytes.length) throw new UnreadableGroupError(`the ${kind}'s header is cut short`);
  let header: unknown;
  try {
    header = JSON.parse(decoder.decode(bytes.subarray(8, 8 + headerLength)));
  } catch (e) {
    throw new UnreadableGroupError(`the ${kind}'s header is not JSON: ${String(e)}`);
  }
  if (typeof header !== "object" || header === null || Array.isArray(header)) {
    throw new UnreadableGroupError(`the ${kind}'s header is not a JSON object`);
  }
  const v = (header as { v?: unknown }).v;
  if (v !== LOG_FORMAT_VERSION) {
    throw new UnreadableGroupError(
      `the ${kind} is in format ${String(v)}; this build reads format ${LOG_FORMAT_VERSION} (a newer Lookout published it: upgrade this server)`,
    );
  }
  return { header: header as Record<string, unknown>, at: 8 + headerLength };
}
