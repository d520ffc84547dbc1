/**
 * The CUE lexer: turns source text into tokens on demand, inserting commas after a line's final token
 * as the spec requires (identifiers, keywords, `_|_`, literals, `)`, `]`, `}`, `?`, `...`). It never
 * throws: bad input becomes `ILLEGAL` tokens and errors.
 *
 * The parser uses a {@link Scanner}: the current token (and one token of lookahead) lives in the
 * scanner's fields, so no object is allocated per token; identifiers and simple string values come
 * back interned. {@link createLexer} offers the same tokens as objects for tools.
 */

import { createInterner, hashPrime, hashSeed, type Interner, type Keyword } from "./intern.js";
import { scanString } from "./string-lit.js";
import {
  type AttrInfo,
  isDigit,
  isIdentChar,
  isLetter,
  type LexComment,
  type LexError,
  type Lexer,
  operatorFlags,
  punctuation,
  type StringInfo,
  type Token,
  type TokenType,
} from "./tokens.js";

export type { AttrInfo, LexComment, LexError, Lexer, StringInfo, Token, TokenType } from "./tokens.js";

// Character classes of ASCII characters, for the scanner's dispatch on a token's first character
// (numbers rather than a string union: this is the innermost loop of the scanner). The tables and
// constants are module-local on purpose: V8 folds these constants, but not imported ones, and the
// switch below reads them for every token.
/** Not a token start: an illegal character, or punctuation decided by `punctuation`. */
const clsOther = 0;
/** Space, tab, carriage return. */
const clsSpace = 1;
const clsNewline = 2;
/** Letters and `$` (non-ASCII letters too, classified apart). */
const clsLetter = 3;
const clsUnderscore = 4;
const clsHash = 5;
const clsDigit = 6;
/** `"` and `'`. */
const clsQuote = 7;
const clsSlash = 8;
const clsDot = 9;
const clsAt = 10;
/** `)`, `]`, `}`, `?`: single-character tokens after which a newline inserts a comma. */
const clsClose = 11;
/** `,`, `:`, `(`, `[`, `{`, `~`: single-character tokens that are no operator and insert no comma. */
const clsOpen = 12;

/** The class of each ASCII character. */
const charClass = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 36) charClass[c] = clsLetter;
  else if (c >= 48 && c <= 57) charClass[c] = clsDigit;
}
charClass[32] = clsSpace;
charClass[9] = clsSpace;
charClass[13] = clsSpace;
charClass[10] = clsNewline;
charClass[95] = clsUnderscore;
charClass[35] = clsHash;
charClass[34] = clsQuote;
charClass[39] = clsQuote;
charClass[47] = clsSlash;
charClass[46] = clsDot;
charClass[64] = clsAt;
for (const c of [41, 93, 125, 63]) charClass[c] = clsClose;
for (const c of [44, 58, 40, 91, 123, 126]) charClass[c] = clsOpen;

/** The token of each {@link clsClose} and {@link clsOpen} character. */
const charToken: readonly (TokenType | undefined)[] = Array.from({ length: 128 }, (_, c) =>
  charClass[c] === clsClose || charClass[c] === clsOpen
    ? punctuation(String.fromCharCode(c), 0, c)
    : undefined,
);

/** ASCII characters that may continue an identifier (letters, digits, `_`, `$`). */
const asciiIdentChar = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36)
    asciiIdentChar[c] = 1;
}

/** FNV-1a as the interner computes it (see `hashChar`), inlined in the scanning loops. */
const fnvSeed = hashSeed;
const fnvPrime = hashPrime;

/** Plain decimal integers up to this many digits are decoded by the lexer (exact in a double). */
const maxPlainDigits = 15;

/**
 * A token stream over `text[start, end)` with the current token in its fields. `next()` advances;
 * `peek()` looks one token ahead without losing the current one.
 */
export class Scanner {
  readonly text: string;
  readonly limit: number;
  readonly errors: LexError[] = [];
  /** Comments, collected only when asked for. */
  readonly comments: LexComment[] | undefined;
  readonly interner: Interner;

  /** The current token. */
  type: TokenType = "EOF";
  start = 0;
  end = 0;
  /** For `,`: inserted at a newline or the end of input. */
  implicit = false;
  /** For `IDENT`: the (interned) name; for a `STRING` without `str`: the decoded value. */
  value = "";
  /** For `IDENT`: the keyword it spells (`for`, `null`, `_`...), else "". Compare this, not `value`. */
  keyword: Keyword = "";
  /** For `STRING` literals that are not a plain `"…"` without escapes. */
  str: StringInfo | undefined = undefined;
  attr: AttrInfo | undefined = undefined;
  /** For `INT`: the value of a plain decimal literal (no `_`, prefix or multiplier), else -1. */
  intValue = -1;
  /** For operators: binary precedence (low three bits) and `unaryFlag`; 0 for other tokens. */
  op = 0;

  #i: number;
  #needComma = false;
  #atEOF = false;
  #peeked = false;
  #pType: TokenType = "EOF";
  #pStart = 0;
  #pEnd = 0;
  #pImplicit = false;
  #pValue = "";
  #pKeyword: Keyword = "";
  #pStr: StringInfo | undefined = undefined;
  #pAttr: AttrInfo | undefined = undefined;
  #pInt = -1;
  #pOp = 0;

  constructor(text: string, start: number, end: number, interner: Interner, keepComments: boolean) {
    this.text = text;
    this.limit = end;
    this.interner = interner;
    this.comments = keepComments ? [] : undefined;
    this.#i = start === 0 && text.charCodeAt(0) === 0xfeff ? 1 : start;
  }

  /** Advances to the next token. */
  next(): void {
    if (this.#peeked) {
      this.#peeked = false;
      this.type = this.#pType;
      this.start = this.#pStart;
      this.end = this.#pEnd;
      this.implicit = this.#pImplicit;
      this.value = this.#pValue;
      this.keyword = this.#pKeyword;
      this.str = this.#pStr;
      this.attr = this.#pAttr;
      this.intValue = this.#pInt;
      this.op = this.#pOp;
      return;
    }
    this.#scan();
  }

  /** The type of the token after the current one (scanned once, kept for `next()`). */
  peek(): TokenType {
    if (!this.#peeked) {
      const type = this.type;
      const start = this.start;
      const end = this.end;
      const implicit = this.implicit;
      const value = this.value;
      const keyword = this.keyword;
      const str = this.str;
      const attr = this.attr;
      const intValue = this.intValue;
      const op = this.op;
      this.#scan();
      this.#pType = this.type;
      this.#pStart = this.start;
      this.#pEnd = this.end;
      this.#pImplicit = this.implicit;
      this.#pValue = this.value;
      this.#pKeyword = this.keyword;
      this.#pStr = this.str;
      this.#pAttr = this.attr;
      this.#pInt = this.intValue;
      this.#pOp = this.op;
      this.#peeked = true;
      this.type = type;
      this.start = start;
      this.end = end;
      this.implicit = implicit;
      this.value = value;
      this.keyword = keyword;
      this.str = str;
      this.attr = attr;
      this.intValue = intValue;
      this.op = op;
    }
    return this.#pType;
  }

  /** The keyword the peeked token spells (call after `peek()` returned `IDENT`). */
  peekKeyword(): Keyword {
    return this.#pKeyword;
  }

  /** Where the peeked token ends (call after `peek()`). */
  peekEnd(): number {
    return this.#pEnd;
  }

  /**
   * Drops the current token (and any peeked one) and scans the next token at `offset`, where no
   * comma is pending: the parser skips a token it has already seen in the text (the `:` right
   * after a label) without scanning it.
   */
  skipTo(offset: number): void {
    this.#peeked = false;
    this.#i = offset;
    this.#needComma = false;
    this.#scan();
  }

  /** Makes `[s, e)` the current token; `comma`: a newline after it inserts a comma. */
  #emit(type: TokenType, s: number, e: number, comma: boolean): void {
    this.type = type;
    this.start = s;
    this.end = e;
    this.#i = e;
    this.#needComma = comma;
  }

  #scan(): void {
    const text = this.text;
    const end = this.limit;
    this.implicit = false;
    this.str = undefined;
    this.attr = undefined;
    this.op = 0;
    let i = this.#i;
    for (;;) {
      if (i >= end) {
        if (this.#needComma && !this.#atEOF) {
          this.#atEOF = true;
          this.#emit(",", end, end, false);
          this.implicit = true;
          return;
        }
        this.#atEOF = true;
        this.#emit("EOF", end, end, false);
        return;
      }
      const c = text.charCodeAt(i);
      switch (c < 128 ? (charClass[c] as number) : isLetter(c) ? clsLetter : clsOther) {
        case clsSpace:
          i++;
          continue;
        case clsNewline:
          // A newline after a line's final token inserts a comma.
          if (this.#needComma && !this.#leadingPunctuation(i + 1)) {
            this.#emit(",", i, i, false);
            this.#i = i + 1;
            this.implicit = true;
            return;
          }
          i++;
          continue;
        case clsLetter:
          this.#word(i);
          return;
        case clsUnderscore:
          if (text.charCodeAt(i + 1) === 124 && text.charCodeAt(i + 2) === 95) {
            this.#emit("BOTTOM", i, i + 3, true);
            return;
          }
          if (text.charCodeAt(i + 1) === 35) this.#ident(i, c);
          else this.#word(i);
          return;
        case clsHash:
          this.#ident(i, c);
          return;
        case clsDigit:
          // Like cue's scanner (and unlike the spec's note on numeric literals), a number is a
          // number whatever token precedes it.
          this.#number(i);
          return;
        case clsQuote:
          this.#string(i);
          return;
        case clsSlash:
          if (text.charCodeAt(i + 1) === 47) {
            let k = i + 2;
            while (k < end && text.charCodeAt(k) !== 10) k++;
            this.comments?.push({ start: i, end: k, text: text.slice(i + 2, k) });
            i = k;
            continue;
          }
          this.#punctuation(i, c);
          return;
        case clsDot:
          if (isDigit(text.charCodeAt(i + 1))) this.#number(i);
          else this.#punctuation(i, c);
          return;
        case clsAt:
          this.#attribute(i);
          return;
        case clsClose:
          // `)`, `]`, `}`, `?`: a newline after them inserts a comma.
          this.#emit(charToken[c] as TokenType, i, i + 1, true);
          return;
        case clsOpen:
          this.#emit(charToken[c] as TokenType, i, i + 1, false);
          return;
        default:
          this.#punctuation(i, c);
          return;
      }
    }
  }

  /** Operators and punctuation starting at `s` (first character `c`). */
  #punctuation(s: number, c: number): void {
    const text = this.text;
    const type = punctuation(text, s, c);
    if (type !== undefined) {
      this.#emit(type, s, s + type.length, type === "...");
      this.op = operatorFlags(c, text.charCodeAt(s + 1));
    } else if (c === 46) {
      this.errors.push({ offset: s, message: "illegal token '..'; expected '.'" });
      this.#emit("ILLEGAL", s, s + 2, false);
    } else {
      // Consume a whole code point so errors name the character.
      const cp = text.codePointAt(s) ?? c;
      this.errors.push({ offset: s, message: `illegal character ${describeChar(cp)}` });
      this.#emit("ILLEGAL", s, s + (cp > 0xffff ? 2 : 1), false);
    }
  }

  /**
   * Whether the next significant character is `,` or `:`: then the newline inserts no comma, which
   * allows front-style commas (`a\n, b`) and labels split from their colon (cue issue 721).
   */
  #leadingPunctuation(from: number): boolean {
    const text = this.text;
    const end = this.limit;
    let k = from;
    while (k < end) {
      const c = text.charCodeAt(k);
      if (c === 32 || c === 9 || c === 13 || c === 10) k++;
      else if (c === 47 && text.charCodeAt(k + 1) === 47) {
        while (k < end && text.charCodeAt(k) !== 10) k++;
      } else return c === 44 || c === 58;
    }
    return false;
  }

  /** An identifier starting at `s` with a letter, `$` or a single `_` (the common case). */
  #word(s: number): void {
    const text = this.text;
    const end = this.limit;
    let h = fnvSeed;
    let k = s;
    while (k < end) {
      const d = text.charCodeAt(k);
      if (d < 128 ? asciiIdentChar[d] === 0 : !isIdentChar(d)) break;
      h = Math.imul(h ^ d, fnvPrime);
      k++;
    }
    this.value = this.interner.internHashed(text, s, k, h);
    this.keyword = this.interner.keyword;
    this.#emit("IDENT", s, k, true);
  }

  /** An identifier starting with `#` or `_#` (or a `#"…"#` string). */
  #ident(s: number, c: number): void {
    const text = this.text;
    const end = this.limit;
    let k = s;
    if (c === 35) {
      // `#` starts a definition name or a `#"…"#` string.
      let q = k;
      while (q < end && text.charCodeAt(q) === 35) q++;
      const qc = text.charCodeAt(q);
      if (qc === 34 || qc === 39) {
        this.#string(s);
        return;
      }
      k++;
      if (!(k < end && isLetter(text.charCodeAt(k)))) {
        // A lone `#` is an identifier for cue's scanner (a definition named "#").
        this.value = "#";
        this.keyword = "";
        this.#emit("IDENT", s, k, true);
        return;
      }
    } else {
      k += 2;
      if (!(k < end && isLetter(text.charCodeAt(k)))) {
        this.errors.push({ offset: s, message: "invalid identifier: '_#' must be followed by a letter" });
        this.#emit("ILLEGAL", s, k, false);
        return;
      }
    }
    // Scan and hash in one pass (the prefix `#` or `_#` first).
    let h = fnvSeed;
    for (let j = s; j < k; j++) h = Math.imul(h ^ text.charCodeAt(j), fnvPrime);
    while (k < end) {
      const d = text.charCodeAt(k);
      if (d < 128 ? asciiIdentChar[d] === 0 : !isIdentChar(d)) break;
      h = Math.imul(h ^ d, fnvPrime);
      k++;
    }
    this.value = this.interner.internHashed(text, s, k, h);
    this.keyword = this.interner.keyword;
    this.#emit("IDENT", s, k, true);
  }

  #number(s: number): void {
    const text = this.text;
    const end = this.limit;
    let k = s;
    const c0 = text.charCodeAt(k);
    const c1 = text.charCodeAt(k + 1) | 0x20;
    this.intValue = -1;
    if (c0 === 48 && (c1 === 120 || c1 === 111 || c1 === 98)) {
      k += 2;
      while (k < end && (isIdentChar(text.charCodeAt(k)) || text.charCodeAt(k) === 95)) k++;
      this.#emit("INT", s, k, true);
      return;
    }
    let isFloat = false;
    let plain = true;
    let v = 0;
    while (k < end) {
      const d = text.charCodeAt(k);
      if (d >= 48 && d <= 57) v = v * 10 + (d - 48);
      else if (d === 95) plain = false;
      else break;
      k++;
    }
    if (text.charCodeAt(k) === 46 && text.charCodeAt(k + 1) !== 46) {
      // `1.` is a float, but in `1...` the dots are an ellipsis.
      const after = text.charCodeAt(k + 1);
      if (isDigit(after) || !isLetter(after) || after === 101 || after === 69) {
        isFloat = true;
        k++;
        while (k < end && (isDigit(text.charCodeAt(k)) || text.charCodeAt(k) === 95)) k++;
      }
    }
    const e = text.charCodeAt(k);
    if (e === 101 || e === 69) {
      const sign = text.charCodeAt(k + 1);
      const d = sign === 43 || sign === 45 ? k + 2 : k + 1;
      if (isDigit(text.charCodeAt(d))) {
        isFloat = true;
        k = d;
        while (k < end && (isDigit(text.charCodeAt(k)) || text.charCodeAt(k) === 95)) k++;
      }
    }
    const m = text.charCodeAt(k);
    if (m === 75 || m === 77 || m === 71 || m === 84 || m === 80) {
      k++;
      if (text.charCodeAt(k) === 105) k++;
      isFloat = false;
      plain = false;
    }
    if (!isFloat && plain && k - s <= maxPlainDigits && (c0 !== 48 || k - s === 1)) this.intValue = v;
    this.#emit(isFloat ? "FLOAT" : "INT", s, k, true);
  }

  #string(s: number): void {
    const text = this.text;
    const end = this.limit;
    if (text.charCodeAt(s) === 34 && !(text.charCodeAt(s + 1) === 34 && text.charCodeAt(s + 2) === 34)) {
      // Fast path: a plain "…" without escapes needs no decoding.
      let k = s + 1;
      let h = fnvSeed;
      while (k < end) {
        const c = text.charCodeAt(k);
        if (c === 34) {
          this.value = this.interner.internHashed(text, s + 1, k, h);
          this.#emit("STRING", s, k + 1, true);
          return;
        }
        if (c === 92 || c === 10 || c === 13) break;
        h = Math.imul(h ^ c, fnvPrime);
        k++;
      }
    }
    const r = scanString(text, s, end, (from) => this.#findClose(from));
    for (const e of r.errors) this.errors.push(e);
    this.value = "";
    this.#emit("STRING", s, r.end, true);
    this.str = { bytes: r.bytes, multiline: r.multiline, parts: r.parts };
  }

  /** The `)` closing an interpolation whose expression starts at `from`; -1 if none. */
  #findClose(from: number): number {
    const sub = new Scanner(this.text, from, this.limit, this.interner, false);
    let depth = 0;
    for (;;) {
      sub.next();
      if (sub.type === "EOF") return -1;
      if (sub.type === "(") depth++;
      else if (sub.type === ")") {
        if (depth === 0) return sub.start;
        depth--;
      }
    }
  }

  #attribute(s: number): void {
    const text = this.text;
    const end = this.limit;
    let k = s + 1;
    while (k < end && isIdentChar(text.charCodeAt(k))) k++;
    if (k === s + 1 || text.charCodeAt(k) !== 40) {
      this.errors.push({ offset: s, message: "invalid attribute: expected '@name('" });
      this.#emit("ILLEGAL", s, k === s + 1 ? s + 1 : k, false);
      return;
    }
    const name = this.interner.intern(text, s + 1, k);
    // Balanced token sequence: lex the body so strings and nested brackets are respected.
    const bodyOffset = k + 1;
    const sub = new Scanner(text, bodyOffset, end, this.interner, false);
    let depth = 0;
    for (;;) {
      sub.next();
      const t = sub.type;
      if (t === "EOF") {
        this.errors.push({ offset: s, message: "attribute missing ')'" });
        this.#emit("ILLEGAL", s, end, false);
        return;
      }
      if (t === "(" || t === "[" || t === "{") depth++;
      else if (t === ")" || t === "]" || t === "}") {
        if (depth === 0) {
          if (t !== ")") this.errors.push({ offset: sub.start, message: `unexpected '${t}' in attribute` });
          this.#emit("ATTR", s, sub.end, true);
          this.attr = { name, body: text.slice(bodyOffset, sub.start), bodyOffset };
          return;
        }
        depth--;
      }
    }
  }
}

/** Creates a scanner over `text[start, end)` for the parser. */
export function createScanner(
  text: string,
  start: number,
  end: number,
  interner: Interner,
  keepComments: boolean,
): Scanner {
  return new Scanner(text, start, end, interner, keepComments);
}

/** Creates a lexer over `text[start, end)` that hands out tokens as objects (and keeps comments). */
export function createLexer(text: string, start = 0, end = text.length): Lexer {
  const sc = new Scanner(text, start, end, createInterner(), true);
  const next = (): Token => {
    sc.next();
    switch (sc.type) {
      case ",":
        return sc.implicit
          ? { type: ",", start: sc.start, end: sc.end, implicit: true }
          : { type: ",", start: sc.start, end: sc.end };
      case "STRING":
        return {
          type: "STRING",
          start: sc.start,
          end: sc.end,
          str: sc.str ?? { bytes: false, multiline: false, parts: sc.value === "" ? [] : [sc.value] },
        };
      case "ATTR":
        return sc.attr === undefined
          ? { type: "ATTR", start: sc.start, end: sc.end }
          : { type: "ATTR", start: sc.start, end: sc.end, attr: sc.attr };
      default:
        return { type: sc.type, start: sc.start, end: sc.end };
    }
  };
  return { next, errors: sc.errors, comments: sc.comments ?? [] };
}

function describeChar(cp: number): string {
  const hex = cp.toString(16).toUpperCase().padStart(4, "0");
  return `U+${hex} '${String.fromCodePoint(cp)}'`;
}
