/**
 * The CUE lexer: turns source text into tokens on demand, inserting commas after a line's final token
 * as the spec requires (identifiers, keywords, `_|_`, literals, `)`, `]`, `}`, `?`, `...`). Comments
 * act like newlines and are collected. It never throws: bad input becomes `ILLEGAL` tokens and errors.
 */

import { type ExprRange, scanString } from "./string-lit.js";

/** Token kinds; punctuation and operators are their own spelling. */
export type TokenType =
  | "EOF"
  | "ILLEGAL"
  | "IDENT"
  | "INT"
  | "FLOAT"
  | "STRING"
  | "BOTTOM"
  | "ATTR"
  | ","
  | ":"
  | "?"
  | "!"
  | "("
  | ")"
  | "["
  | "]"
  | "{"
  | "}"
  | "."
  | "..."
  | "="
  | "+"
  | "-"
  | "*"
  | "/"
  | "&"
  | "|"
  | "&&"
  | "||"
  | "=="
  | "!="
  | "<"
  | "<="
  | ">"
  | ">="
  | "=~"
  | "!~";

/** Decoded contents of a string token. */
export interface StringInfo {
  readonly bytes: boolean;
  readonly multiline: boolean;
  readonly parts: readonly (string | ExprRange)[];
}

/** One token. `start`/`end` are 0-based offsets into the source text. */
export interface Token {
  readonly type: TokenType;
  readonly start: number;
  readonly end: number;
  /** For `,`: true when inserted at a newline or end of file. */
  readonly implicit?: boolean;
  /** For `STRING`. */
  readonly str?: StringInfo;
  /** For `ATTR`: name and raw body. */
  readonly attr?: { readonly name: string; readonly body: string; readonly bodyOffset: number };
}

/** A lexical error. */
export interface LexError {
  readonly offset: number;
  readonly message: string;
}

/** A comment found while lexing (text without `//`). */
export interface LexComment {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** Pulls tokens from a range of a source text. */
export interface Lexer {
  next(): Token;
  readonly errors: LexError[];
  readonly comments: LexComment[];
}

const commaAfter = new Set<TokenType>([
  "IDENT",
  "INT",
  "FLOAT",
  "STRING",
  "BOTTOM",
  "ATTR",
  ")",
  "]",
  "}",
  "?",
  "...",
]);

function isLetter(c: number): boolean {
  return (
    (c >= 97 && c <= 122) ||
    (c >= 65 && c <= 90) ||
    c === 95 ||
    c === 36 ||
    (c >= 0x80 && /\p{L}/u.test(String.fromCharCode(c)))
  );
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isIdentChar(c: number): boolean {
  return isLetter(c) || isDigit(c) || (c >= 0x80 && /\p{Nd}/u.test(String.fromCharCode(c)));
}

/** Creates a lexer over `text[start, end)`. */
export function createLexer(text: string, start = 0, end = text.length): Lexer {
  const errors: LexError[] = [];
  const comments: LexComment[] = [];
  let i = start;
  if (i === 0 && text.charCodeAt(0) === 0xfeff) i = 1;
  let last: TokenType = ",";
  let atEOF = false;

  const findClose = (from: number): number => {
    const sub = createLexer(text, from, end);
    let depth = 0;
    for (;;) {
      const t = sub.next();
      if (t.type === "EOF") return -1;
      if (t.type === "(") depth++;
      else if (t.type === ")") {
        if (depth === 0) return t.start;
        depth--;
      }
    }
  };

  /**
   * Whether the next significant character is `,` or `:`: then the newline inserts no comma, which
   * allows front-style commas (`a\n, b`) and labels split from their colon (cue issue 721).
   */
  const leadingPunctuation = (from: number): boolean => {
    let k = from;
    while (k < end) {
      const c = text.charCodeAt(k);
      if (c === 32 || c === 9 || c === 13 || c === 10) k++;
      else if (c === 47 && text.charCodeAt(k + 1) === 47) {
        while (k < end && text.charCodeAt(k) !== 10) k++;
      } else return c === 44 || c === 58;
    }
    return false;
  };

  const tok = (type: TokenType, s: number, e: number): Token => {
    last = type;
    return { type, start: s, end: e };
  };

  const next = (): Token => {
    for (;;) {
      // Skip whitespace, emitting a comma at a newline when the last token calls for one.
      while (i < end) {
        const c = text.charCodeAt(i);
        if (c === 10) {
          if (commaAfter.has(last) && !leadingPunctuation(i + 1)) {
            last = ",";
            const t: Token = { type: ",", start: i, end: i, implicit: true };
            i++;
            return t;
          }
          i++;
        } else if (c === 32 || c === 9 || c === 13) {
          i++;
        } else if (c === 47 && text.charCodeAt(i + 1) === 47) {
          let k = i + 2;
          while (k < end && text.charCodeAt(k) !== 10) k++;
          comments.push({ start: i, end: k, text: text.slice(i + 2, k) });
          i = k;
        } else {
          break;
        }
      }
      if (i >= end) {
        if (commaAfter.has(last) && !atEOF) {
          last = ",";
          atEOF = true;
          return { type: ",", start: end, end, implicit: true };
        }
        atEOF = true;
        return { type: "EOF", start: end, end };
      }
      const s = i;
      const c = text.charCodeAt(i);
      // Identifiers, `_|_`, `#Def`, `_#def`.
      if (c === 95 && text.charCodeAt(i + 1) === 124 && text.charCodeAt(i + 2) === 95) {
        i += 3;
        return tok("BOTTOM", s, i);
      }
      if (c === 35 /* # */ || c === 95 || isLetter(c)) {
        let k = i;
        if (c === 35) {
          // `#` starts a definition name or a `#"…"#` string.
          let h = k;
          while (h < end && text.charCodeAt(h) === 35) h++;
          const qc = text.charCodeAt(h);
          if (qc === 34 || qc === 39) return stringToken(s);
          k++;
          if (!(k < end && isLetter(text.charCodeAt(k)))) {
            // A lone `#` is an identifier for cue's scanner (a definition named "#").
            i = k;
            return tok("IDENT", s, i);
          }
        } else if (c === 95 && text.charCodeAt(k + 1) === 35) {
          k += 2;
          if (!(k < end && isLetter(text.charCodeAt(k)))) {
            i = k;
            errors.push({ offset: s, message: "invalid identifier: '_#' must be followed by a letter" });
            return tok("ILLEGAL", s, i);
          }
        }
        while (k < end && isIdentChar(text.charCodeAt(k))) k++;
        i = k;
        return tok("IDENT", s, i);
      }
      // Like cue's scanner (and unlike the spec's note on numeric literals), a number is a number
      // whatever token precedes it.
      if (isDigit(c) || (c === 46 && isDigit(text.charCodeAt(i + 1)))) {
        return numberToken(s);
      }
      if (c === 34 || c === 39) return stringToken(s);
      if (c === 64 /* @ */) return attrToken(s);
      i++;
      const n = text.charCodeAt(i);
      switch (c) {
        case 44:
          return tok(",", s, i);
        case 58:
          return tok(":", s, i);
        case 63:
          return tok("?", s, i);
        case 40:
          return tok("(", s, i);
        case 41:
          return tok(")", s, i);
        case 91:
          return tok("[", s, i);
        case 93:
          return tok("]", s, i);
        case 123:
          return tok("{", s, i);
        case 125:
          return tok("}", s, i);
        case 43:
          return tok("+", s, i);
        case 45:
          return tok("-", s, i);
        case 42:
          return tok("*", s, i);
        case 47:
          return tok("/", s, i);
        case 46:
          if (n === 46 && text.charCodeAt(i + 1) === 46) {
            i += 2;
            return tok("...", s, i);
          }
          if (n === 46) {
            i++;
            errors.push({ offset: s, message: "illegal token '..'; expected '.'" });
            return tok("ILLEGAL", s, i);
          }
          return tok(".", s, i);
        case 38:
          if (n === 38) {
            i++;
            return tok("&&", s, i);
          }
          return tok("&", s, i);
        case 124:
          if (n === 124) {
            i++;
            return tok("||", s, i);
          }
          return tok("|", s, i);
        case 61:
          if (n === 61) {
            i++;
            return tok("==", s, i);
          }
          if (n === 126) {
            i++;
            return tok("=~", s, i);
          }
          return tok("=", s, i);
        case 33:
          if (n === 61) {
            i++;
            return tok("!=", s, i);
          }
          if (n === 126) {
            i++;
            return tok("!~", s, i);
          }
          return tok("!", s, i);
        case 60:
          if (n === 61) {
            i++;
            return tok("<=", s, i);
          }
          return tok("<", s, i);
        case 62:
          if (n === 61) {
            i++;
            return tok(">=", s, i);
          }
          return tok(">", s, i);
        default: {
          // Consume a whole code point so errors name the character.
          const cp = text.codePointAt(s) ?? c;
          i = s + (cp > 0xffff ? 2 : 1);
          errors.push({ offset: s, message: `illegal character ${describeChar(cp)}` });
          return tok("ILLEGAL", s, i);
        }
      }
    }
  };

  const numberToken = (s: number): Token => {
    let k = s;
    const c0 = text.charCodeAt(k);
    const c1 = text.charCodeAt(k + 1) | 0x20;
    if (c0 === 48 && (c1 === 120 || c1 === 111 || c1 === 98)) {
      k += 2;
      while (k < end && (isIdentChar(text.charCodeAt(k)) || text.charCodeAt(k) === 95)) k++;
      i = k;
      return tok("INT", s, i);
    }
    let isFloat = false;
    while (k < end && (isDigit(text.charCodeAt(k)) || text.charCodeAt(k) === 95)) k++;
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
    }
    i = k;
    return tok(isFloat ? "FLOAT" : "INT", s, i);
  };

  const stringToken = (s: number): Token => {
    const r = scanString(text, s, end, findClose);
    for (const e of r.errors) errors.push(e);
    i = r.end;
    last = "STRING";
    return {
      type: "STRING",
      start: s,
      end: i,
      str: { bytes: r.bytes, multiline: r.multiline, parts: r.parts },
    };
  };

  const attrToken = (s: number): Token => {
    let k = s + 1;
    while (k < end && isIdentChar(text.charCodeAt(k))) k++;
    const name = text.slice(s + 1, k);
    if (name === "" || text.charCodeAt(k) !== 40) {
      i = k === s + 1 ? s + 1 : k;
      errors.push({ offset: s, message: "invalid attribute: expected '@name('" });
      return tok("ILLEGAL", s, i);
    }
    // Balanced token sequence: lex the body so strings and nested brackets are respected.
    const bodyOffset = k + 1;
    const sub = createLexer(text, bodyOffset, end);
    const stack: TokenType[] = [];
    for (;;) {
      const t = sub.next();
      if (t.type === "EOF") {
        errors.push({ offset: s, message: "attribute missing ')'" });
        i = end;
        last = "ILLEGAL";
        return { type: "ILLEGAL", start: s, end: i };
      }
      if (t.type === "(" || t.type === "[" || t.type === "{") stack.push(t.type);
      else if (t.type === ")" || t.type === "]" || t.type === "}") {
        if (stack.length === 0) {
          if (t.type !== ")")
            errors.push({ offset: t.start, message: `unexpected '${t.type}' in attribute` });
          i = t.end;
          last = "ATTR";
          return {
            type: "ATTR",
            start: s,
            end: i,
            attr: { name, body: text.slice(bodyOffset, t.start), bodyOffset },
          };
        }
        stack.pop();
      }
    }
  };

  return { next, errors, comments };
}

function describeChar(cp: number): string {
  const hex = cp.toString(16).toUpperCase().padStart(4, "0");
  return `U+${hex} '${String.fromCodePoint(cp)}'`;
}
