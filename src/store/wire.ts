/**
 * A minimal protobuf wire-format writer over one reusable buffer, for the hot paths that encode a
 * record per result (the fold) or splice a thousand of them into a response (the API). It writes
 * exactly what @bufbuild/protobuf's BinaryWriter would for the same calls, without a chunk list or
 * an allocation per field. Not re-entrant: finish one encoding (`take*`) before starting another.
 */

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;

/** A growable write buffer with a cursor. */
export interface WireWriter {
  /** Bytes written since the last reset. */
  readonly length: number;
  reset(): void;
  /** A field tag. */
  tag(field: number, wireType: number): void;
  /** An unsigned varint (0 <= n < 2^53). */
  varint(n: number): void;
  /** A proto `double` (fixed64, little endian). */
  double(n: number): void;
  /** A length-delimited UTF-8 string (tag, length, bytes). */
  string(field: number, s: string): void;
  /** Bytes held as a latin1 string (one char per byte), copied as is. */
  latin1(bytes: string): void;
  /** Bytes `start` to `end` of `src`, copied as is. */
  bytes(src: Buffer, start: number, end: number): void;
  /** Opens a length-delimited field (tag written); returns what `endLen` needs. */
  beginLen(field: number): number;
  /** Closes the field opened by `beginLen`, writing its length in front of its bytes. */
  endLen(mark: number): void;
  /** The bytes written, as a latin1 string (one char per byte). */
  takeLatin1(): string;
  /** The bytes written, copied into a new Buffer. */
  takeBuffer(): Buffer;
}

/** Number of bytes of n as an unsigned varint. */
export function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** Creates a writer whose buffer starts at `initial` bytes and doubles as needed. */
export function createWireWriter(initial = 4096): WireWriter {
  let buf = Buffer.allocUnsafe(initial);
  let pos = 0;
  const ensure = (n: number): void => {
    if (pos + n <= buf.length) return;
    let size = buf.length * 2;
    while (size < pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    buf.copy(next, 0, 0, pos);
    buf = next;
  };
  const varint = (n: number): void => {
    ensure(10);
    if (n < 0x80000000) {
      // The common case (tags, lengths, enums, seconds until 2038): integer shifts.
      while (n >= 128) {
        buf[pos++] = (n & 127) | 128;
        n >>>= 7;
      }
      buf[pos++] = n;
      return;
    }
    while (n >= 128) {
      buf[pos++] = (n % 128) | 128;
      n = Math.floor(n / 128);
    }
    buf[pos++] = n;
  };
  const tag = (field: number, wireType: number): void => varint(field * 8 + wireType);
  /**
   * Lengths are written optimistically as one byte (most fields are short); a longer field is moved
   * to make room for its real length.
   */
  const beginLen = (field: number): number => {
    tag(field, WIRE_LEN);
    ensure(1);
    pos++;
    return pos;
  };
  const endLen = (start: number): void => {
    const len = pos - start;
    if (len < 128) {
      buf[start - 1] = len;
      return;
    }
    const extra = varintSize(len) - 1;
    ensure(extra);
    buf.copy(buf, start + extra, start, pos);
    pos += extra;
    let p = start - 1;
    let n = len;
    while (n >= 128) {
      buf[p++] = (n % 128) | 128;
      n = Math.floor(n / 128);
    }
    buf[p] = n;
  };
  return {
    get length() {
      return pos;
    },
    reset() {
      pos = 0;
    },
    tag,
    varint,
    double(n) {
      ensure(8);
      buf.writeDoubleLE(n, pos);
      pos += 8;
    },
    string(field, s) {
      const n = s.length;
      // UTF-8 takes at most 3 bytes per UTF-16 code unit.
      ensure(n * 3 + 12);
      tag(field, WIRE_LEN);
      if (n < 128) {
        // Short ASCII (names, labels, units) is copied char by char: a call into Buffer#write costs
        // more than the copy.
        const lenAt = pos++;
        let i = 0;
        for (; i < n; i++) {
          const c = s.charCodeAt(i);
          if (c >= 128) break;
          buf[pos++] = c;
        }
        if (i === n) {
          buf[lenAt] = n;
          return;
        }
        pos = lenAt + 1;
        pos += buf.write(s, pos, "utf8");
        endLen(lenAt + 1);
        return;
      }
      ensure(1);
      const start = ++pos;
      pos += buf.write(s, pos, "utf8");
      endLen(start);
    },
    latin1(bytes) {
      ensure(bytes.length);
      pos += buf.write(bytes, pos, "latin1");
    },
    bytes(src, start, end) {
      ensure(end - start);
      pos += src.copy(buf, pos, start, end);
    },
    beginLen,
    endLen,
    takeLatin1() {
      const s = buf.toString("latin1", 0, pos);
      pos = 0;
      return s;
    },
    takeBuffer() {
      const out = Buffer.allocUnsafe(pos);
      buf.copy(out, 0, 0, pos);
      pos = 0;
      return out;
    },
  };
}
