/**
 * Tokens of the CUE lexer: their kinds and payloads, the character classes the scanner uses, and
 * which operator or punctuation a character sequence spells.
 */

import type { ExprRange } from "./string-lit.js";

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
  | "!~"
  | "~";

/** Decoded contents of a string token. */
export interface StringInfo {
  readonly bytes: boolean;
  readonly multiline: boolean;
  readonly parts: readonly (string | ExprRange)[];
}

/** An attribute token's name and raw body. */
export interface AttrInfo {
  readonly name: string;
  readonly body: string;
  readonly bodyOffset: number;
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
  readonly attr?: AttrInfo;
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

/** Pulls tokens, as objects, from a range of a source text. */
export interface Lexer {
  next(): Token;
  readonly errors: LexError[];
  readonly comments: LexComment[];
}

export function isLetter(c: number): boolean {
  return (
    (c >= 97 && c <= 122) ||
    (c >= 65 && c <= 90) ||
    c === 95 ||
    c === 36 ||
    (c >= 0x80 && /\p{L}/u.test(String.fromCharCode(c)))
  );
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function isIdentChar(c: number): boolean {
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 36)
    return true;
  return c >= 0x80 && (/\p{L}/u.test(String.fromCharCode(c)) || /\p{Nd}/u.test(String.fromCharCode(c)));
}

/**
 * The operator or punctuation token at `text[s]` (whose code is `c`), or undefined when none starts
 * there. Its length is the length of its type's spelling.
 */
export function punctuation(text: string, s: number, c: number): TokenType | undefined {
  const n = text.charCodeAt(s + 1);
  switch (c) {
    case 44:
      return ",";
    case 58:
      return ":";
    case 63:
      return "?";
    case 40:
      return "(";
    case 41:
      return ")";
    case 91:
      return "[";
    case 93:
      return "]";
    case 123:
      return "{";
    case 125:
      return "}";
    case 43:
      return "+";
    case 45:
      return "-";
    case 42:
      return "*";
    case 47:
      return "/";
    case 46:
      if (n !== 46) return ".";
      return text.charCodeAt(s + 2) === 46 ? "..." : undefined;
    case 38:
      return n === 38 ? "&&" : "&";
    case 124:
      return n === 124 ? "||" : "|";
    case 61:
      return n === 61 ? "==" : n === 126 ? "=~" : "=";
    case 33:
      return n === 61 ? "!=" : n === 126 ? "!~" : "!";
    case 126:
      // `label~X` and `label~(K,V)` aliases (the aliasv2 experiment).
      return "~";
    case 60:
      return n === 61 ? "<=" : "<";
    case 62:
      return n === 61 ? ">=" : ">";
    default:
      return undefined;
  }
}

/** In {@link operatorFlags}: the token can start a unary expression (`-x`, `>=0`, `*1`, `!a`). */
export const unaryFlag = 8;

/**
 * What the operator token starting with `c` (followed by `n`) can do, as the parser asks for every
 * operand: the low three bits are its binary precedence (1 `|` … 7 `*` `/`, 0 when it is not a
 * binary operator), plus {@link unaryFlag}. Punctuation that is no operator gives 0.
 */
export function operatorFlags(c: number, n: number): number {
  switch (c) {
    case 124:
      return n === 124 ? 3 : 1;
    case 38:
      return n === 38 ? 4 : 2;
    case 61:
      return n === 61 || n === 126 ? 5 | unaryFlag : 0;
    case 33:
      return n === 61 || n === 126 ? 5 | unaryFlag : unaryFlag;
    case 60:
    case 62:
      return 5 | unaryFlag;
    case 43:
    case 45:
      return 6 | unaryFlag;
    case 42:
      return 7 | unaryFlag;
    case 47:
      return 7;
    default:
      return 0;
  }
}
