/**
 * Bytes read as a string the way cue v3 converts them (Go's `strings.ToValidUTF8`): each run of
 * bytes that are not valid UTF-8 becomes one U+FFFD, where Node's decoder gives one per maximal
 * subpart (`'a\x80\x95a'` is `"a\uFFFDa"`, not `"a\uFFFD\uFFFDa"`).
 */

/** The length of the valid UTF-8 sequence at `i`, or 0 when the byte there starts none. */
function seqLen(b: Uint8Array, i: number): number {
  const c = b[i] ?? 0;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => {
    const x = b[i + k];
    return x !== undefined && x >= lo && x <= hi;
  };
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const lo = c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xf4 ? 0x8f : 0xbf;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/** `b` decoded as UTF-8, each run of invalid bytes replaced by a single U+FFFD. */
export function validUtf8(b: Uint8Array): string {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  let out = "";
  let start = 0;
  let i = 0;
  while (i < b.length) {
    const n = seqLen(b, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += buf.toString("utf8", start, i);
    out += "\uFFFD";
    while (i < b.length && seqLen(b, i) === 0) i++;
    start = i;
  }
  return start === 0 ? buf.toString("utf8") : out + buf.toString("utf8", start, b.length);
}
