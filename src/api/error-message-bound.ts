/**
 * The longest error message answered, in characters. Refusals quote what the client sent (a host
 * name, say), and a client can send megabytes of it; over gRPC the message travels in the trailers
 * (`grpc-message`, percent-encoded: up to 9 bytes a character), and a header block above nghttp2's
 * limit (64 KiB in Node) is never sent: Node resets the stream with `FRAME_SIZE_ERROR` and closes
 * the whole HTTP/2 session, refusing every other call on it. grpc-java clients refuse trailers
 * above 8 KiB. 512 characters keep the encoded message under 4.6 KiB.
 */
export const MAX_STATUS_MESSAGE = 512;

/** `message`, cut to MAX_STATUS_MESSAGE characters (not splitting a surrogate pair) with a note of how much was left out. */
export function boundedMessage(message: string): string {
  if (message.length <= MAX_STATUS_MESSAGE) return message;
  const note = `… (${message.length} characters, cut)`;
  let end = MAX_STATUS_MESSAGE - note.length;
  const last = message.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return message.slice(0, end) + note;
}

/**
 * Bounds the `grpc-message` of gRPC response headers or trailers (percent-encoded, as Connect and
 * the gRPC spec write it) to MAX_STATUS_MESSAGE characters once decoded.
 */
export function boundGrpcMessage(h: Headers): void {
  const raw = h.get("grpc-message");
  if (raw === null || raw.length <= MAX_STATUS_MESSAGE) return;
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    text = raw;
  }
  h.set("grpc-message", encodeURIComponent(boundedMessage(text)));
}
