/**
 * Scanning and decoding of CUE string and bytes literals: `"…"`, `'…'`, `"""…"""`, `'''…'''`, any of
 * them wrapped in `#` delimiters (`#"…"#`, where the escape delimiter becomes `\#`), escapes, and
 * `\(expr)` interpolations. Multi-line literals drop the newline after the opening quote and before
 * the closing quote, and strip the closing quote's indentation from every line.
 *
 * Bytes literals decode to a "binary string" (one char per byte, code units 0–255).
 */

/** A raw source range of an interpolated expression (`\(` … `)` exclusive). */
export interface ExprRange {
  readonly start: number;
  readonly end: number;
}

/** The result of scanning one literal. */
export interface StringScan {
  /** Offset just past the closing delimiter (or where scanning stopped on error). */
  readonly end: number;
  readonly bytes: boolean;
  readonly multiline: boolean;
  /** Decoded text and interpolation ranges, in order. Text parts are never empty strings. */
  readonly parts: readonly (string | ExprRange)[];
  readonly errors: readonly { offset: number; message: string }[];
}

/** Finds the `)` closing an interpolation whose expression starts at `from`; -1 if none. */
export type FindClose = (from: number) => number;

interface RawSeg {
  start: number;
  end: number;
}

const noParts: readonly (string | ExprRange)[] = Object.freeze([]);
const noErrors: readonly { offset: number; message: string }[] = Object.freeze([]);

const CR = 13;
const LF = 10;
const BACKSLASH = 92;
const HASH = 35;

/** Scans the literal starting at `start` (at a `#`, `"` or `'`). */
export function scanString(text: string, start: number, limit: number, findClose: FindClose): StringScan {
  const errors: { offset: number; message: string }[] = [];
  let i = start;
  let hashes = 0;
  while (i < limit && text.charCodeAt(i) === HASH) {
    hashes++;
    i++;
  }
  const q = text.charCodeAt(i);
  const bytes = q === 39;
  const multiline = text.charCodeAt(i + 1) === q && text.charCodeAt(i + 2) === q;
  if (hashes === 0 && !multiline && !bytes) {
    // Fast path for the common plain string without escapes: no decoding needed.
    let k = i + 1;
    while (k < limit) {
      const c = text.charCodeAt(k);
      if (c === q) {
        return {
          end: k + 1,
          bytes,
          multiline,
          parts: k === i + 1 ? noParts : [text.slice(i + 1, k)],
          errors: noErrors,
        };
      }
      if (c === BACKSLASH || c === LF || c === CR) break;
      k++;
    }
  }
  i += multiline ? 3 : 1;
  if (multiline) {
    if (text.charCodeAt(i) === CR) i++;
    if (text.charCodeAt(i) !== LF) {
      errors.push({ offset: i, message: "expected newline after multiline quote" });
    } else {
      i++;
    }
  }
  const contentStart = i;
  const segs: (RawSeg | ExprRange)[] = [];
  const exprs = new Set<object>();
  let segStart = i;
  let closeAt = -1;
  const atHashes = (p: number): boolean => {
    for (let k = 0; k < hashes; k++) if (text.charCodeAt(p + k) !== HASH) return false;
    return true;
  };
  while (i < limit) {
    const c = text.charCodeAt(i);
    if (c === q) {
      if (multiline) {
        if (text.charCodeAt(i + 1) === q && text.charCodeAt(i + 2) === q && atHashes(i + 3)) {
          closeAt = i;
          break;
        }
      } else if (atHashes(i + 1)) {
        closeAt = i;
        break;
      }
      i++;
      continue;
    }
    if (c === LF && !multiline) {
      errors.push({ offset: i, message: "string literal not terminated" });
      break;
    }
    if (c === BACKSLASH && atHashes(i + 1)) {
      const e = i + 1 + hashes;
      const ec = text.charCodeAt(e);
      if (ec === 40 /* ( */) {
        if (i > segStart) segs.push({ start: segStart, end: i });
        const close = findClose(e + 1);
        if (close < 0) {
          errors.push({ offset: i, message: "interpolation not terminated" });
          i = limit;
          segStart = limit;
          break;
        }
        const r: ExprRange = { start: e + 1, end: close };
        exprs.add(r);
        segs.push(r);
        i = close + 1;
        segStart = i;
        continue;
      }
      if ((ec === LF || ec === CR) && !multiline) {
        errors.push({ offset: i, message: "string literal not terminated" });
        break;
      }
      i = e + escapeLength(text, e);
      continue;
    }
    i++;
  }
  if (closeAt < 0) {
    if (errors.length === 0) errors.push({ offset: start, message: "string literal not terminated" });
    if (i > segStart) segs.push({ start: segStart, end: Math.min(i, limit) });
    const end = Math.min(i, limit);
    return {
      end,
      bytes,
      multiline,
      parts: decodeSegs(segs, exprs, multiline ? "" : undefined, bytes, q, hashes, errors, text),
      errors,
    };
  }
  let contentEnd = closeAt;
  let indent = "";
  if (multiline) {
    let ls = closeAt;
    while (ls > contentStart && text.charCodeAt(ls - 1) !== LF) ls--;
    const prefix = text.slice(ls, closeAt);
    if (/^[ \t]*$/.test(prefix)) indent = prefix;
    else errors.push({ offset: closeAt, message: "closing triple quote must be on its own line" });
    // The newline before the closing line is not part of the value.
    contentEnd = ls > contentStart ? ls - 1 : contentStart;
    if (contentEnd > contentStart && text.charCodeAt(contentEnd - 1) === CR) contentEnd--;
  }
  if (closeAt > segStart) segs.push({ start: segStart, end: closeAt });
  const clipped: (RawSeg | ExprRange)[] = [];
  for (const s of segs) {
    if (exprs.has(s)) {
      if (s.start < contentEnd || !multiline) clipped.push(s);
      else
        errors.push({ offset: s.start, message: "interpolation on the closing line of a multiline string" });
      continue;
    }
    const e = Math.min(s.end, contentEnd);
    if (e > s.start) clipped.push({ start: s.start, end: e });
  }
  const end = closeAt + (multiline ? 3 : 1) + hashes;
  return {
    end,
    bytes,
    multiline,
    parts: decodeSegs(
      clipped,
      exprs,
      multiline ? indent : undefined,
      bytes,
      q,
      hashes,
      errors,
      text,
      contentStart,
    ),
    errors,
  };
}

/** How many characters an escape body starting with `c` spans (the checks happen while decoding). */
/**
 * How many characters the escape body at `e` spans: numeric escapes stop at the first character
 * that is not a digit of their base, so a short escape never swallows the closing quote (decoding
 * reports it).
 */
function escapeLength(text: string, e: number): number {
  const c = text.charCodeAt(e);
  const isHex = (x: number): boolean => (x >= 48 && x <= 57) || (x >= 65 && x <= 70) || (x >= 97 && x <= 102);
  const run = (from: number, max: number, ok: (x: number) => boolean): number => {
    let k = 0;
    while (k < max && ok(text.charCodeAt(from + k))) k++;
    return k;
  };
  switch (c) {
    case 117 /* u */:
      return 1 + run(e + 1, 4, isHex);
    case 85 /* U */:
      return 1 + run(e + 1, 8, isHex);
    case 120 /* x */:
      return 1 + run(e + 1, 2, isHex);
    default:
      if (c >= 48 && c <= 55) return 1 + run(e + 1, 2, (x) => x >= 48 && x <= 55);
      return 1;
  }
}

function decodeSegs(
  segs: readonly (RawSeg | ExprRange)[],
  exprs: Set<object>,
  indent: string | undefined,
  bytes: boolean,
  q: number,
  hashes: number,
  errors: { offset: number; message: string }[],
  text: string,
  contentStart = -1,
): (string | ExprRange)[] {
  const out: (string | ExprRange)[] = [];
  for (const s of segs) {
    if (exprs.has(s)) {
      out.push(s);
      continue;
    }
    const d = decodeText(text, s.start, s.end, indent, s.start === contentStart, bytes, q, hashes, errors);
    const last = out[out.length - 1];
    if (typeof last === "string") out[out.length - 1] = last + d;
    else if (d !== "") out.push(d);
  }
  return out;
}

const simpleEscapes: Record<number, string> = {
  97: "\x07",
  98: "\b",
  102: "\f",
  110: "\n",
  114: "\r",
  116: "\t",
  118: "\v",
  47: "/",
  92: "\\",
};

function decodeText(
  text: string,
  start: number,
  end: number,
  indent: string | undefined,
  lineStart: boolean,
  bytes: boolean,
  q: number,
  hashes: number,
  errors: { offset: number; message: string }[],
): string {
  let out = "";
  let i = start;
  let atLineStart = lineStart;
  const emit = (s: string): void => {
    out += bytes ? toBinary(s) : s;
  };
  while (i < end) {
    if (atLineStart && indent !== undefined) {
      atLineStart = false;
      if (text.startsWith(indent, i)) {
        i += indent.length;
      } else {
        // As in cue/literal, only an empty line may lack the indentation (not even a shorter one).
        const c0 = text.charCodeAt(i);
        const empty = i >= end || c0 === LF || (c0 === CR && text.charCodeAt(i + 1) === LF);
        if (!empty) {
          errors.push({
            offset: i,
            message: "invalid whitespace: line does not start with the closing indentation",
          });
          while (i < end && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
        }
      }
      continue;
    }
    const c = text.charCodeAt(i);
    if (c === CR) {
      i++;
      continue;
    }
    if (c === LF) {
      out += "\n";
      i++;
      atLineStart = true;
      continue;
    }
    if (c === BACKSLASH) {
      let h = 0;
      while (h < hashes && text.charCodeAt(i + 1 + h) === HASH) h++;
      if (h === hashes) {
        const e = i + 1 + hashes;
        if (e >= end && indent !== undefined) {
          // The newline before the closing quote is not part of the value, so it cannot be escaped.
          errors.push({ offset: i, message: "last newline of a multiline string cannot be escaped" });
          i = e;
          continue;
        }
        const ec = text.charCodeAt(e);
        if (ec === LF || (ec === CR && text.charCodeAt(e + 1) === LF)) {
          // `\` at the end of a line elides the newline (and the next line's indentation).
          i = e + (ec === CR ? 2 : 1);
          atLineStart = true;
          continue;
        }
        const r = decodeEscape(text, e, end, bytes, q, hashes);
        if (typeof r === "string") {
          errors.push({ offset: i, message: r });
          i = e + 1;
        } else {
          out += r.value;
          i = r.next;
        }
        continue;
      }
    }
    // Copy a run of ordinary characters at once.
    let k = i + 1;
    while (k < end) {
      const ck = text.charCodeAt(k);
      if (ck === BACKSLASH || ck === LF || ck === CR) break;
      k++;
    }
    emit(text.slice(i, k));
    i = k;
  }
  return out;
}

function decodeEscape(
  text: string,
  e: number,
  end: number,
  bytes: boolean,
  q: number,
  hashes: number,
): string | { value: string; next: number } {
  const c = text.charCodeAt(e);
  const simple = simpleEscapes[c];
  if (simple !== undefined) return { value: simple, next: e + 1 };
  if (c === 39 || c === 34) {
    if (c !== q) return "unknown escape sequence";
    return { value: String.fromCharCode(c), next: e + 1 };
  }
  if (c === 117 || c === 85) {
    const n = c === 117 ? 4 : 8;
    const hex = text.slice(e + 1, e + 1 + n);
    if (hex.length !== n || e + 1 + n > end || !/^[0-9a-fA-F]+$/.test(hex)) return "invalid escape sequence";
    let cp = Number.parseInt(hex, 16);
    let next = e + 1 + n;
    if (cp > 0x10ffff) return "escape sequence is invalid Unicode code point";
    if (cp >= 0xdc00 && cp < 0xe000) return "escape sequence is invalid Unicode code point";
    if (cp >= 0xd800 && cp < 0xdc00) {
      // A high surrogate must be followed by an escaped low surrogate; together they are one code point.
      const lowAt = next + 1 + hashes;
      const okPrefix =
        text.charCodeAt(next) === BACKSLASH && text.slice(next + 1, lowAt) === "#".repeat(hashes);
      const lc = text.charCodeAt(lowAt);
      const ln = lc === 117 ? 4 : lc === 85 ? 8 : 0;
      const lowHex = text.slice(lowAt + 1, lowAt + 1 + ln);
      const low = okPrefix && ln > 0 && /^[0-9a-fA-F]+$/.test(lowHex) ? Number.parseInt(lowHex, 16) : -1;
      if (lowHex.length !== ln || low < 0xdc00 || low >= 0xe000 || lowAt + 1 + ln > end) {
        return "escape sequence is invalid Unicode code point";
      }
      cp = 0x10000 + (cp - 0xd800) * 0x400 + (low - 0xdc00);
      next = lowAt + 1 + ln;
    }
    const s = String.fromCodePoint(cp);
    return { value: bytes ? toBinary(s) : s, next };
  }
  if (c === 120 || (c >= 48 && c <= 55)) {
    if (!bytes) return "hexadecimal and octal escapes are only allowed in bytes literals";
    if (c === 120) {
      const hex = text.slice(e + 1, e + 3);
      if (hex.length !== 2 || e + 3 > end || !/^[0-9a-fA-F]{2}$/.test(hex)) return "invalid escape sequence";
      return { value: String.fromCharCode(Number.parseInt(hex, 16)), next: e + 3 };
    }
    const oct = text.slice(e, e + 3);
    if (oct.length !== 3 || e + 3 > end || !/^[0-7]{3}$/.test(oct)) return "invalid escape sequence";
    const v = Number.parseInt(oct, 8);
    if (v > 255) return "octal escape value > 255";
    return { value: String.fromCharCode(v), next: e + 3 };
  }
  return "unknown escape sequence";
}

/** UTF-8 encodes a string into a binary string (one char per byte). */
export function toBinary(s: string): string {
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 127) {
      ascii = false;
      break;
    }
  }
  if (ascii) return s;
  return Buffer.from(s, "utf8").toString("latin1");
}

/** Converts a binary string (one char per byte) to bytes. */
export function binaryToBytes(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s, "latin1"));
}
