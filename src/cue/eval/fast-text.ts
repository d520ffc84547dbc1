/**
 * The fast export path's JSON text builder: text is written as UTF-8 bytes into one reused buffer
 * and turned into a string once per chunk, instead of collecting millions of small strings (keys,
 * quoted values, separators) and joining them. ASCII, which nearly all configuration is, is copied
 * byte by byte; anything else (and any string JSON must escape) takes the general way
 * (`JSON.stringify`, `Buffer.write`), so the text is exactly what the export walk would write.
 * Module state: evaluation is synchronous and one text is built at a time.
 */

/** Bytes per chunk; a text longer than a third of it is kept as a string chunk of its own. */
const CAP = 1 << 18;
const LONG = Math.floor(CAP / 3);
/**
 * The first chunk of a text is this short, so that the writers' call to `flush` has run before V8
 * optimizes them: a call site that never ran is compiled as a deoptimization, and the first full
 * chunk would otherwise throw the optimized code of every writer (and their callers) away.
 */
const FIRST = 64;

const buf = Buffer.allocUnsafe(CAP);
let pos = 0;
/** Where the current chunk ends ({@link FIRST} for a text's first chunk, then {@link CAP}). */
let cap = FIRST;
/** Whether the bytes since the last chunk are all ASCII (then decoded as latin1, the cheapest). */
let ascii = true;
let chunks: string[] = [];

/** Starts a new text. */
export function textBegin(): void {
  pos = 0;
  cap = FIRST;
  ascii = true;
  chunks = [];
}

/** The text written since {@link textBegin}, as chunks; forgets it. */
export function textEnd(): string[] {
  flush();
  const out = chunks;
  chunks = [];
  return out;
}

function flush(): void {
  cap = CAP;
  if (pos === 0) return;
  chunks.push(buf.toString(ascii ? "latin1" : "utf8", 0, pos));
  pos = 0;
  ascii = true;
}

/** Makes room for `n` bytes: the one place the writers call `flush` from. */
function room(n: number): void {
  if (pos + n > cap) flush();
}

/** Writes one ASCII character. */
export function writeChar(c: number): void {
  room(1);
  buf[pos++] = c;
}

/** Writes any text. */
export function writeText(s: string): void {
  const n = s.length;
  if (n > LONG) {
    flush();
    chunks.push(s);
    return;
  }
  // A UTF-16 unit takes at most three bytes.
  room(3 * n);
  const start = pos;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) {
      pos = start + buf.write(s, start, "utf8");
      ascii = false;
      return;
    }
    buf[pos++] = c;
  }
}

/** Writes text known to be ASCII (and no longer than a chunk). */
export function writeAscii(s: string): void {
  const n = s.length;
  room(n);
  // Copying natively pays off past a few dozen characters.
  if (n > 24) pos += buf.write(s, pos, "latin1");
  else for (let i = 0; i < n; i++) buf[pos++] = s.charCodeAt(i);
}

/** Writes `s` as a JSON string (what `JSON.stringify(s)` gives). */
export function writeQuoted(s: string): void {
  const n = s.length;
  if (n + 2 > LONG) {
    writeText(JSON.stringify(s));
    return;
  }
  room(n + 2);
  const start = pos;
  buf[pos++] = 0x22;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    // Control characters, quotes and backslashes are escaped; other characters need UTF-8 (and
    // lone surrogates an escape): JSON.stringify knows how.
    if (c < 0x20 || c === 0x22 || c === 0x5c || c > 0x7e) {
      pos = start;
      writeText(JSON.stringify(s));
      return;
    }
    buf[pos++] = c;
  }
  buf[pos++] = 0x22;
}
