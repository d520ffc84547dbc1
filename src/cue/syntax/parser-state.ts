/**
 * Parser state and the token-level helpers the declaration and expression parsers share: the
 * current and peeked token, error collection (one per offset, at most `maxErrors`, then a bail-out),
 * nesting depth accounting, and small constructors.
 */

import type * as ast from "./ast.js";
import { createLexer, type Lexer, type Token, type TokenType } from "./lexer.js";
import type { Pos, Source } from "./position.js";

/** A syntax error. */
export interface ParseError {
  readonly code: "syntax" | "limit";
  readonly message: string;
  readonly pos: Pos;
}

/** State shared by a parse and its sub-parses (string interpolations). */
export interface Ctx {
  readonly source: Source;
  readonly errors: ParseError[];
  readonly maxDepth: number;
  readonly maxErrors: number;
  depth: number;
  bailed: boolean;
}

export class Bail extends Error {
  override name = "Bail";
}

/** The state of one parser over `text[start, end)`. */
export interface ParserState {
  readonly ctx: Ctx;
  readonly source: Source;
  readonly text: string;
  readonly lexer: Lexer;
  readonly start: number;
  readonly end: number;
  tok: Token;
  peeked: Token | undefined;
  lexErrorsSeen: number;
}

/** Starts parsing `ctx.source.text[start, end)`. */
export function createState(ctx: Ctx, start: number, end: number): ParserState {
  const lexer = createLexer(ctx.source.text, start, end);
  const ps: ParserState = {
    ctx,
    source: ctx.source,
    text: ctx.source.text,
    lexer,
    start,
    end,
    tok: lexer.next(),
    peeked: undefined,
    lexErrorsSeen: 0,
  };
  flushLexErrors(ps);
  return ps;
}

export function ty(ps: ParserState): TokenType {
  return ps.tok.type;
}

export function flushLexErrors(ps: ParserState): void {
  while (ps.lexErrorsSeen < ps.lexer.errors.length) {
    const e = ps.lexer.errors[ps.lexErrorsSeen++];
    if (e !== undefined) addError(ps, e.offset, e.message);
  }
}

export function addError(
  ps: ParserState,
  offset: number,
  message: string,
  code: "syntax" | "limit" = "syntax",
): void {
  if (ps.ctx.bailed) return;
  // One error per offset is enough; cascades add noise.
  const last = ps.ctx.errors[ps.ctx.errors.length - 1];
  if (last !== undefined && last.pos.offset === offset && last.pos.file === ps.source.name) return;
  ps.ctx.errors.push({ code, message, pos: ps.source.pos(offset) });
  if (ps.ctx.errors.length >= ps.ctx.maxErrors) {
    ps.ctx.bailed = true;
    throw new Bail("too many errors");
  }
}

export function next(ps: ParserState): void {
  if (ps.peeked !== undefined) {
    ps.tok = ps.peeked;
    ps.peeked = undefined;
  } else {
    ps.tok = ps.lexer.next();
  }
  flushLexErrors(ps);
}

export function peek(ps: ParserState): Token {
  if (ps.peeked === undefined) {
    ps.peeked = ps.lexer.next();
    flushLexErrors(ps);
  }
  return ps.peeked;
}

export function pos(ps: ParserState, offset: number): Pos {
  return ps.source.pos(offset);
}

export function tokText(ps: ParserState, t: Token): string {
  return ps.text.slice(t.start, t.end);
}

export function describe(ps: ParserState, t: Token): string {
  switch (t.type) {
    case "EOF":
      return "'EOF'";
    case ",":
      return t.implicit ? "newline" : "','";
    case "IDENT":
    case "INT":
    case "FLOAT":
      return `'${tokText(ps, t)}'`;
    case "STRING":
      return "string literal";
    case "ATTR":
      return "attribute";
    default:
      return `'${t.type}'`;
  }
}

export function isIdent(ps: ParserState, name: string): boolean {
  return ty(ps) === "IDENT" && tokText(ps, ps.tok) === name;
}

export function expect(ps: ParserState, type: TokenType, what: string): number {
  const s = ps.tok.start;
  if (ty(ps) !== type) {
    addError(ps, ps.tok.start, `expected ${what}, found ${describe(ps, ps.tok)}`);
    return s;
  }
  next(ps);
  return s;
}

export function enter(ps: ParserState): void {
  ps.ctx.depth++;
  if (ps.ctx.depth > ps.ctx.maxDepth) {
    addError(ps, ps.tok.start, `nesting too deep (more than ${ps.ctx.maxDepth} levels)`, "limit");
    ps.ctx.bailed = true;
    throw new Bail("too deep");
  }
}

export function leave(ps: ParserState): void {
  ps.ctx.depth--;
}

export function ident(ps: ParserState, t: Token): ast.Ident {
  return { kind: "Ident", name: tokText(ps, t), pos: pos(ps, t.start), end: t.end };
}

/** The identifier of an alias or let clause (current token, consumed); `_` is not allowed. */
export function bindName(ps: ParserState): ast.Ident {
  const id = ident(ps, ps.tok);
  if (ty(ps) !== "IDENT") addError(ps, ps.tok.start, `expected identifier, found ${describe(ps, ps.tok)}`);
  else if (id.name === "_") addError(ps, ps.tok.start, "cannot use _ as alias or let clause");
  if (ty(ps) === "IDENT") next(ps);
  return id;
}

export function skipComma(ps: ParserState): void {
  if (ty(ps) === ",") next(ps);
}

/** Skips to just after the next comma at this nesting level, or to the closing token. */
export function sync(ps: ParserState, closing: TokenType): void {
  let depth = 0;
  for (;;) {
    switch (ty(ps)) {
      case "EOF":
        return;
      case "(":
      case "[":
      case "{":
        depth++;
        break;
      case ")":
      case "]":
      case "}":
        if (depth === 0 && ty(ps) === closing) return;
        if (depth === 0) {
          // A stray closer: drop it and go on.
          next(ps);
          return;
        }
        depth--;
        break;
      case ",":
        if (depth === 0) {
          next(ps);
          return;
        }
        break;
      default:
        break;
    }
    next(ps);
  }
}

export function assertNever(x: never): never {
  throw new Error(`unexpected ${String(x)}`);
}
