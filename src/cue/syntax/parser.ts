/**
 * The CUE parser: a recursive-descent parser over the lexer's tokens producing the AST of `ast.ts`.
 * It never throws: syntax errors are collected (code `syntax`) with positions and the tree contains
 * `BadExpr`/`BadDecl` where input could not be understood. Nesting deeper than `maxDepth` is reported
 * (code `limit`) instead of risking a stack overflow; after `maxErrors` errors parsing stops.
 *
 * The grammar is split over `parse-file.ts` (package, imports), `parse-decls.ts` (struct members)
 * and `parse-exprs.ts` (expressions), sharing the state of `parser-state.ts`.
 */

import type * as ast from "./ast.js";
import { createInterner } from "./intern.js";
import { BadExprNode } from "./literal-nodes.js";
import { FileNode } from "./nodes.js";
import { wholeExpr } from "./parse-exprs.js";
import { sourceFile } from "./parse-file.js";
import { Bail, type Ctx, createState, empty, type ParseError } from "./parser-state.js";
import { createSource, type Source } from "./position.js";

export type { ParseError } from "./parser-state.js";

/** Parser limits. */
export interface ParseOptions {
  /** Maximum nesting of expressions/structs/lists (default 400). */
  readonly maxDepth?: number;
  /** Stop after this many errors (default 10). */
  readonly maxErrors?: number;
  /** Keep the file's comments in `File.comments` (default false: nothing here reads them). */
  readonly comments?: boolean;
}

/** The result of parsing: always a tree, plus errors if the input was not valid CUE. */
export interface ParseResult<T> {
  readonly node: T;
  readonly errors: readonly ParseError[];
  readonly source: Source;
}

/** Parses one `.cue` file. */
export function parseFile(filename: string, text: string, options: ParseOptions = {}): ParseResult<ast.File> {
  const ctx = newCtx(filename, text, options);
  let file: ast.File;
  try {
    file = sourceFile(createState(ctx, 0, text.length));
  } catch (e) {
    file = new FileNode(ctx.source, 0, text.length, undefined, empty, empty, empty, empty);
    handleCrash(ctx, e);
  }
  return { node: file, errors: ctx.errors, source: ctx.source };
}

/** Parses a single expression (e.g. the argument of `@test(eq, …)`), optionally within a range. */
export function parseExpression(
  filename: string,
  text: string,
  options: ParseOptions = {},
  range?: { start: number; end: number },
): ParseResult<ast.Expr> {
  const ctx = newCtx(filename, text, options);
  const start = range?.start ?? 0;
  let node: ast.Expr;
  try {
    node = wholeExpr(createState(ctx, start, range?.end ?? text.length));
  } catch (e) {
    node = new BadExprNode(ctx.source, start, start);
    handleCrash(ctx, e);
  }
  return { node, errors: ctx.errors, source: ctx.source };
}

function newCtx(filename: string, text: string, options: ParseOptions): Ctx {
  return {
    source: createSource(filename, text),
    errors: [],
    maxDepth: options.maxDepth ?? 400,
    maxErrors: options.maxErrors ?? 10,
    // About one distinct name or short string per 128 characters in large documents.
    interner: createInterner(text.length >> 7),
    keepComments: options.comments ?? false,
    stack: [],
    top: 0,
    depth: 0,
    bailed: false,
  };
}

/** A bail-out ends the parse quietly; a stack overflow or a bug becomes an error, never a throw. */
function handleCrash(ctx: Ctx, e: unknown): void {
  if (e instanceof Bail) return;
  const message =
    e instanceof RangeError ? "input nested too deeply" : `internal parser error: ${(e as Error)?.message}`;
  ctx.errors.push({ code: e instanceof RangeError ? "limit" : "syntax", message, pos: ctx.source.pos(0) });
}
