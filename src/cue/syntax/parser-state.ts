/**
 * Parser state and the token-level helpers the declaration and expression parsers share: the
 * scanner (current token and one of lookahead), error collection (one per offset, at most
 * `maxErrors`, then a bail-out), nesting depth accounting, list building without slack, and small
 * constructors.
 */

import type * as ast from "./ast.js";
import type { Interner, Keyword } from "./intern.js";
import { createScanner, type Scanner, type TokenType } from "./lexer.js";
import { IdentNode } from "./literal-nodes.js";
import type { Pos, Source } from "./position.js";

/** A syntax error. */
export interface ParseError {
  readonly code: "syntax" | "limit";
  readonly message: string;
  readonly pos: Pos;
  /**
   * cue's parser accepts the text and its compiler refuses it (`_` as a label or alias, a
   * comprehension as a pattern): the tree is whole, and the error has a path (see `compilePathAt`).
   */
  readonly compile?: true;
}

/** State shared by a parse and its sub-parses (string interpolations). */
export interface Ctx {
  readonly source: Source;
  readonly errors: ParseError[];
  readonly maxDepth: number;
  readonly maxErrors: number;
  readonly interner: Interner;
  readonly keepComments: boolean;
  /**
   * Elements of the lists being built, innermost last: a list pushes here and copies its slice
   * out at the end, so every list in the tree is allocated once at its exact length.
   */
  readonly stack: unknown[];
  top: number;
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
  /** The token stream; its fields are the current token. */
  readonly sc: Scanner;
  readonly start: number;
  readonly end: number;
  lexErrorsSeen: number;
}

/** Starts parsing `ctx.source.text[start, end)`. */
export function createState(ctx: Ctx, start: number, end: number): ParserState {
  const sc = createScanner(ctx.source.text, start, end, ctx.interner, ctx.keepComments);
  const ps: ParserState = {
    ctx,
    source: ctx.source,
    text: ctx.source.text,
    sc,
    start,
    end,
    lexErrorsSeen: 0,
  };
  sc.next();
  flushLexErrors(ps);
  return ps;
}

export function ty(ps: ParserState): TokenType {
  return ps.sc.type;
}

export function flushLexErrors(ps: ParserState): void {
  const errs = ps.sc.errors;
  while (ps.lexErrorsSeen < errs.length) {
    const e = errs[ps.lexErrorsSeen++];
    if (e !== undefined) addError(ps, e.offset, e.message);
  }
}

export function addError(
  ps: ParserState,
  offset: number,
  message: string,
  code: "syntax" | "limit" = "syntax",
  compile = false,
): void {
  if (ps.ctx.bailed) return;
  // One error per offset is enough; cascades add noise.
  const last = ps.ctx.errors[ps.ctx.errors.length - 1];
  if (last !== undefined && last.pos.offset === offset && last.pos.file === ps.source.name) return;
  const pos = ps.source.pos(offset);
  ps.ctx.errors.push(compile ? { code, message, pos, compile } : { code, message, pos });
  if (ps.ctx.errors.length >= ps.ctx.maxErrors) {
    ps.ctx.bailed = true;
    throw new Bail("too many errors");
  }
}

export function next(ps: ParserState): void {
  ps.sc.next();
  if (ps.sc.errors.length !== ps.lexErrorsSeen) flushLexErrors(ps);
}

/** Continues at `offset` (see `Scanner.skipTo`): for tokens the parser has read from the text. */
export function skipTo(ps: ParserState, offset: number): void {
  ps.sc.skipTo(offset);
  if (ps.sc.errors.length !== ps.lexErrorsSeen) flushLexErrors(ps);
}

/** The type of the token after the current one. */
export function peek(ps: ParserState): TokenType {
  const t = ps.sc.peek();
  if (ps.sc.errors.length !== ps.lexErrorsSeen) flushLexErrors(ps);
  return t;
}

/** The source text of the current token. */
export function tokText(ps: ParserState): string {
  return ps.text.slice(ps.sc.start, ps.sc.end);
}

/** How an error message names the current token. */
export function describe(ps: ParserState): string {
  switch (ps.sc.type) {
    case "EOF":
      return "'EOF'";
    case ",":
      return ps.sc.implicit ? "newline" : "','";
    case "IDENT":
    case "INT":
    case "FLOAT":
      return `'${tokText(ps)}'`;
    case "STRING":
      return "string literal";
    case "ATTR":
      return "attribute";
    default:
      return `'${ps.sc.type}'`;
  }
}

/**
 * Whether the current token is an identifier followed by `=` (an alias or a binding): decided from
 * the text, which saves scanning a lookahead token for every field and operand.
 */
export function atAlias(ps: ParserState): boolean {
  const sc = ps.sc;
  return sc.type === "IDENT" && assignAt(ps, sc.end);
}

/** Whether `=` (not `==`, `=~`) follows offset `k` on its line. */
export function assignAt(ps: ParserState, k: number): boolean {
  const text = ps.text;
  let c = text.charCodeAt(k);
  while (k < ps.end && (c === 32 || c === 9 || c === 13)) c = text.charCodeAt(++k);
  if (k >= ps.end || c !== 61) return false;
  // Like the scanner: `==` and `=~` are operators.
  const n = text.charCodeAt(k + 1);
  return n !== 61 && n !== 126;
}

/** Whether the current token is the identifier `name` (a word the parser treats specially). */
export function isIdent(ps: ParserState, name: Keyword): boolean {
  return ps.sc.type === "IDENT" && ps.sc.keyword === name;
}

export function expect(ps: ParserState, type: TokenType, what: string): number {
  const s = ps.sc.start;
  if (ps.sc.type !== type) {
    addError(ps, s, `expected ${what}, found ${describe(ps)}`);
    return s;
  }
  next(ps);
  return s;
}

export function enter(ps: ParserState): void {
  if (++ps.ctx.depth > ps.ctx.maxDepth) {
    addError(ps, ps.sc.start, `nesting too deep (more than ${ps.ctx.maxDepth} levels)`, "limit");
    ps.ctx.bailed = true;
    throw new Bail("too deep");
  }
}

export function leave(ps: ParserState): void {
  ps.ctx.depth--;
}

/** An identifier node for the current token (whatever its type: error paths name any token). */
export function ident(ps: ParserState): ast.Ident {
  const sc = ps.sc;
  return new IdentNode(ps.source, sc.start, sc.type === "IDENT" ? sc.value : tokText(ps));
}

/** The identifier of an alias or let clause (current token, consumed); `_` is not allowed. */
export function bindName(ps: ParserState): ast.Ident {
  const id = ident(ps);
  if (ty(ps) !== "IDENT") addError(ps, ps.sc.start, `expected identifier, found ${describe(ps)}`);
  else if (ps.sc.keyword === "_")
    addError(ps, ps.sc.start, "cannot use _ as alias or let clause", "syntax", true);
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

/** Shared by every absent list (no attributes, no imports...), to keep large trees small. */
export const empty: readonly never[] = Object.freeze([]);

/** Starts a list: returns the mark to pass to `push` and `take`. */
export function mark(ps: ParserState): number {
  return ps.ctx.top;
}

/** Appends an element to the innermost list being built. */
export function push(ps: ParserState, x: unknown): void {
  const ctx = ps.ctx;
  ctx.stack[ctx.top++] = x;
}

/** Ends the list started at mark `m`: its elements as an exact-length array (or the shared empty). */
export function take<T>(ps: ParserState, m: number): readonly T[] {
  const ctx = ps.ctx;
  const st = ctx.stack;
  const n = ctx.top - m;
  ctx.top = m;
  // Array literals for short lists: V8 tracks literal allocation sites and, seeing that these
  // arrays all survive, allocates them straight in the old generation (no young-generation copies).
  switch (n) {
    case 0:
      return empty;
    case 1:
      return [st[m]] as T[];
    case 2:
      return [st[m], st[m + 1]] as T[];
    case 3:
      return [st[m], st[m + 1], st[m + 2]] as T[];
    case 4:
      return [st[m], st[m + 1], st[m + 2], st[m + 3]] as T[];
    case 5:
      return [st[m], st[m + 1], st[m + 2], st[m + 3], st[m + 4]] as T[];
    case 6:
      return [st[m], st[m + 1], st[m + 2], st[m + 3], st[m + 4], st[m + 5]] as T[];
    default:
      return st.slice(m, m + n) as T[];
  }
}

export function assertNever(x: never): never {
  throw new Error(`unexpected ${String(x)}`);
}
