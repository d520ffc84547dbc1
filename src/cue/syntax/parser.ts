/**
 * The CUE parser: a recursive-descent parser over the lexer's tokens producing the AST of `ast.ts`.
 * It never throws: syntax errors are collected (code `syntax`) with positions and the tree contains
 * `BadExpr`/`BadDecl` where input could not be understood. Nesting deeper than `maxDepth` is reported
 * (code `limit`) instead of risking a stack overflow; after `maxErrors` errors parsing stops.
 */

import type * as ast from "./ast.js";
import { createLexer, type Lexer, type Token, type TokenType } from "./lexer.js";
import { decodeNumber } from "./number-lit.js";
import { createSource, type Pos, type Source } from "./position.js";
import { binaryToBytes, type ExprRange } from "./string-lit.js";

/** A syntax error. */
export interface ParseError {
  readonly code: "syntax" | "limit";
  readonly message: string;
  readonly pos: Pos;
}

/** Parser limits. */
export interface ParseOptions {
  /** Maximum nesting of expressions/structs/lists (default 400). */
  readonly maxDepth?: number;
  /** Stop after this many errors (default 10). */
  readonly maxErrors?: number;
}

/** The result of parsing: always a tree, plus errors if the input was not valid CUE. */
export interface ParseResult<T> {
  readonly node: T;
  readonly errors: readonly ParseError[];
  readonly source: Source;
}

interface Ctx {
  readonly source: Source;
  readonly errors: ParseError[];
  readonly maxDepth: number;
  readonly maxErrors: number;
  depth: number;
  bailed: boolean;
}

class Bail extends Error {
  override name = "Bail";
}

/** Parses one `.cue` file. */
export function parseFile(filename: string, text: string, options: ParseOptions = {}): ParseResult<ast.File> {
  const ctx = newCtx(filename, text, options);
  const p = createParser(ctx, 0, text.length);
  let file: ast.File;
  try {
    file = p.file();
  } catch (e) {
    file = {
      kind: "File",
      filename,
      pos: ctx.source.pos(0),
      end: text.length,
      fileAttributes: [],
      imports: [],
      decls: [],
      comments: [],
    };
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
  const p = createParser(ctx, start, range?.end ?? text.length);
  let node: ast.Expr;
  try {
    node = p.wholeExpr();
  } catch (e) {
    node = { kind: "BadExpr", pos: ctx.source.pos(start), end: start };
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
    depth: 0,
    bailed: false,
  };
}

function handleCrash(ctx: Ctx, e: unknown): void {
  if (e instanceof Bail) return;
  const message =
    e instanceof RangeError ? "input nested too deeply" : `internal parser error: ${(e as Error)?.message}`;
  ctx.errors.push({ code: e instanceof RangeError ? "limit" : "syntax", message, pos: ctx.source.pos(0) });
}

/** Shared by every field without attributes (most of them), to keep large trees small. */
const noAttributes: readonly ast.Attribute[] = Object.freeze([]);

const binaryPrec: Partial<Record<TokenType, number>> = {
  "|": 1,
  "&": 2,
  "||": 3,
  "&&": 4,
  "==": 5,
  "!=": 5,
  "<": 5,
  "<=": 5,
  ">": 5,
  ">=": 5,
  "=~": 5,
  "!~": 5,
  "+": 6,
  "-": 6,
  "*": 7,
  "/": 7,
};

const unaryOps = new Set<TokenType>(["!", "-", "+", "*", "<", "<=", ">", ">=", "!=", "==", "=~", "!~"]);

/** Tokens after which `if`/`for`/`let` are plain identifiers (labels or references), not clauses. */
const identFollowers = new Set<TokenType>([":", "?", "=", ",", "}", "]", ")", "EOF", ".", "&", "|"]);

function createParser(ctx: Ctx, start: number, end: number) {
  const { source } = ctx;
  const text = source.text;
  const lexer: Lexer = createLexer(text, start, end);
  let lexErrorsSeen = 0;
  let tok: Token = lexer.next();
  let peeked: Token | undefined;
  // A function, not a property read, so TypeScript does not narrow across next() calls.
  const ty = (): TokenType => tok.type;

  const flushLexErrors = (): void => {
    while (lexErrorsSeen < lexer.errors.length) {
      const e = lexer.errors[lexErrorsSeen++];
      if (e !== undefined) addError(e.offset, e.message);
    }
  };

  const addError = (offset: number, message: string, code: "syntax" | "limit" = "syntax"): void => {
    if (ctx.bailed) return;
    // One error per offset is enough; cascades add noise.
    const last = ctx.errors[ctx.errors.length - 1];
    if (last !== undefined && last.pos.offset === offset && last.pos.file === source.name) return;
    ctx.errors.push({ code, message, pos: source.pos(offset) });
    if (ctx.errors.length >= ctx.maxErrors) {
      ctx.bailed = true;
      throw new Bail("too many errors");
    }
  };

  const next = (): void => {
    if (peeked !== undefined) {
      tok = peeked;
      peeked = undefined;
    } else {
      tok = lexer.next();
    }
    flushLexErrors();
  };
  const peek = (): Token => {
    if (peeked === undefined) {
      peeked = lexer.next();
      flushLexErrors();
    }
    return peeked;
  };
  flushLexErrors();

  const pos = (offset: number): Pos => source.pos(offset);
  const tokText = (t: Token): string => text.slice(t.start, t.end);
  const describe = (t: Token): string => {
    switch (t.type) {
      case "EOF":
        return "'EOF'";
      case ",":
        return t.implicit ? "newline" : "','";
      case "IDENT":
      case "INT":
      case "FLOAT":
        return `'${tokText(t)}'`;
      case "STRING":
        return "string literal";
      case "ATTR":
        return "attribute";
      default:
        return `'${t.type}'`;
    }
  };
  const isIdent = (name: string): boolean => ty() === "IDENT" && tokText(tok) === name;

  const expect = (type: TokenType, what: string): number => {
    const s = tok.start;
    if (ty() !== type) {
      addError(tok.start, `expected ${what}, found ${describe(tok)}`);
      return s;
    }
    next();
    return s;
  };

  const enter = (): void => {
    ctx.depth++;
    if (ctx.depth > ctx.maxDepth) {
      addError(tok.start, `nesting too deep (more than ${ctx.maxDepth} levels)`, "limit");
      ctx.bailed = true;
      throw new Bail("too deep");
    }
  };
  const leave = (): void => {
    ctx.depth--;
  };

  const ident = (t: Token): ast.Ident => ({ kind: "Ident", name: tokText(t), pos: pos(t.start), end: t.end });

  /** The identifier of an alias or let clause (current token, consumed); `_` is not allowed. */
  const bindName = (): ast.Ident => {
    const id = ident(tok);
    if (ty() !== "IDENT") addError(tok.start, `expected identifier, found ${describe(tok)}`);
    else if (id.name === "_") addError(tok.start, "cannot use _ as alias or let clause");
    if (ty() === "IDENT") next();
    return id;
  };

  // ---- file ------------------------------------------------------------------------------------

  const file = (): ast.File => {
    const leadingAttrs: ast.Attribute[] = [];
    while (ty() === "ATTR") {
      leadingAttrs.push(attribute());
      skipComma();
    }
    let packageName: ast.Ident | undefined;
    let fileAttributes: ast.Attribute[] = [];
    const decls: ast.Decl[] = [];
    if (isIdent("package") && peek().type === "IDENT") {
      next();
      packageName = ident(tok);
      next();
      fileAttributes = leadingAttrs;
      endOfDecl("EOF", "package clause");
    } else {
      decls.push(...leadingAttrs);
    }
    const imports: ast.ImportSpec[] = [];
    while (
      isIdent("import") &&
      (peek().type === "(" || peek().type === "STRING" || peek().type === "IDENT")
    ) {
      next();
      if (ty() === "(") {
        next();
        while (ty() !== ")" && ty() !== "EOF") {
          const before = tok.start;
          imports.push(importSpec());
          if (ty() === ",") next();
          else if (ty() !== ")") {
            addError(tok.start, `expected ')' or newline in import list, found ${describe(tok)}`);
            if (tok.start === before) next();
          }
        }
        expect(")", "')'");
      } else {
        imports.push(importSpec());
      }
      endOfDecl("EOF", "import declaration");
    }
    decls.push(...declList("EOF"));
    return {
      kind: "File",
      filename: source.name,
      packageName,
      fileAttributes,
      imports,
      decls,
      comments: lexer.comments.map((c) => ({ kind: "Comment", text: c.text, pos: pos(c.start), end: c.end })),
      pos: pos(start),
      end,
    };
  };

  const importSpec = (): ast.ImportSpec => {
    const s = tok.start;
    let name: ast.Ident | undefined;
    if (ty() === "IDENT") {
      name = ident(tok);
      next();
    }
    if (ty() !== "STRING" || tok.str === undefined) {
      addError(tok.start, `expected import path, found ${describe(tok)}`);
      if (ty() !== "EOF" && ty() !== ")") next();
      return { kind: "Import", name, path: "", pos: pos(s), end: tok.start };
    }
    const parts = tok.str.parts;
    let path = "";
    if (parts.length === 1 && typeof parts[0] === "string" && !tok.str.bytes && !tok.str.multiline)
      path = parts[0];
    else if (parts.length !== 0) addError(tok.start, "invalid import path");
    const e = tok.end;
    next();
    return { kind: "Import", name, path, pos: pos(s), end: e };
  };

  const skipComma = (): void => {
    if (ty() === ",") next();
  };

  /** After a declaration: a comma, or the closing token. */
  const endOfDecl = (closing: TokenType, what: string): void => {
    if (ty() === ",") {
      next();
      return;
    }
    if (ty() === closing) return;
    addError(tok.start, `missing ',' after ${what}, found ${describe(tok)}`);
    sync(closing);
  };

  /** Skips to just after the next comma at this nesting level, or to the closing token. */
  const sync = (closing: TokenType): void => {
    let depth = 0;
    for (;;) {
      switch (ty()) {
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
          if (depth === 0 && ty() === closing) return;
          if (depth === 0) {
            // A stray closer: drop it and go on.
            next();
            return;
          }
          depth--;
          break;
        case ",":
          if (depth === 0) {
            next();
            return;
          }
          break;
        default:
          break;
      }
      next();
    }
  };

  const declList = (closing: "}" | "EOF"): ast.Decl[] => {
    const decls: ast.Decl[] = [];
    while (ty() !== closing && ty() !== "EOF") {
      if (ty() === "," && tok.implicit) {
        next();
        continue;
      }
      const before = tok.start;
      decls.push(decl());
      if (ty() === ",") next();
      else if (ty() !== closing) {
        addError(
          tok.start,
          closing === "}"
            ? `missing ',' in struct literal, found ${describe(tok)}`
            : `expected ',' or newline after declaration, found ${describe(tok)}`,
        );
        sync(closing);
      }
      if (tok.start === before && ty() !== closing && ty() !== "EOF") next();
    }
    return decls;
  };

  // ---- declarations ------------------------------------------------------------------------------

  const attribute = (): ast.Attribute => {
    const t = tok;
    next();
    const a = t.attr ?? { name: "", body: "", bodyOffset: t.start };
    return {
      kind: "Attribute",
      name: a.name,
      body: a.body,
      bodyOffset: a.bodyOffset,
      pos: pos(t.start),
      end: t.end,
    };
  };

  const clauseKeyword = (): "for" | "if" | "let" | undefined => {
    if (ty() !== "IDENT") return undefined;
    // Cheap test first: this runs for every declaration.
    const len = tok.end - tok.start;
    const c0 = text.charCodeAt(tok.start);
    if (!((len === 3 && (c0 === 102 || c0 === 108)) || (len === 2 && c0 === 105))) return undefined;
    const w = tokText(tok);
    if (w !== "for" && w !== "if" && w !== "let") return undefined;
    const p = peek();
    if (w === "for" || w === "let") return p.type === "IDENT" ? w : undefined;
    return identFollowers.has(p.type) ? undefined : "if";
  };

  const decl = (): ast.Decl => {
    const s = tok.start;
    switch (ty()) {
      case "ATTR":
        return attribute();
      case "...":
        return ellipsis();
      default:
        break;
    }
    const kw = clauseKeyword();
    if (kw === "let") return letClause();
    if (kw === "for" || kw === "if") return comprehension();
    // A label and an expression start alike: parse an expression, then look at what follows.
    let alias: ast.Ident | undefined;
    if (ty() === "IDENT" && peek().type === "=") {
      alias = bindName();
      next();
    }
    const e = expr();
    const marker = fieldMarker();
    if (marker !== undefined) return field(e, alias, marker, s);
    if (alias !== undefined) {
      return {
        kind: "Embed",
        expr: { kind: "Alias", ident: alias, expr: e, pos: pos(s), end: e.end },
        pos: pos(s),
        end: e.end,
      };
    }
    if (e.kind === "BadExpr") return { kind: "BadDecl", pos: e.pos, end: e.end };
    return { kind: "Embed", expr: e, pos: e.pos, end: e.end };
  };

  /** `:`, `?:` or `!:` after a label; consumes the marker but not the colon. */
  const fieldMarker = (): ast.FieldConstraint | undefined => {
    if (ty() === ":") return "regular";
    if ((ty() === "?" || ty() === "!") && peek().type === ":") {
      const c = ty() === "?" ? "optional" : "required";
      next();
      return c;
    }
    return undefined;
  };

  const field = (
    labelExpr: ast.Expr,
    alias: ast.Ident | undefined,
    constraint: ast.FieldConstraint,
    s: number,
  ): ast.Field => {
    enter();
    try {
      const label = toLabel(labelExpr);
      // Share the label's position object when the field starts at its label (no alias).
      const fieldPos = labelExpr.pos.offset === s ? labelExpr.pos : pos(s);
      if (label.kind === "PatternLabel" && constraint !== "regular") {
        addError(labelExpr.end, "pattern constraints cannot be optional or required");
      }
      expect(":", "':'");
      const vs = tok.start;
      let valueAlias: ast.Ident | undefined;
      if (ty() === "IDENT" && peek().type === "=") {
        valueAlias = bindName();
        next();
      }
      let value: ast.Expr;
      const kw = clauseKeyword();
      if (kw === "for" || kw === "if" || kw === "let") {
        addError(tok.start, `expected expression, found '${kw}' clause (wrap comprehensions in {})`);
        value = { kind: "BadExpr", pos: pos(tok.start), end: tok.end };
        sync("}");
        return {
          kind: "Field",
          label,
          alias,
          constraint,
          value,
          attributes: noAttributes,
          pos: fieldPos,
          end: value.end,
        };
      }
      const v = expr();
      const m = fieldMarker();
      if (m !== undefined) {
        const inner = field(v, valueAlias, m, vs);
        value = { kind: "Struct", decls: [inner], implicit: true, pos: pos(vs), end: inner.end };
        return {
          kind: "Field",
          label,
          alias,
          constraint,
          value,
          attributes: noAttributes,
          pos: fieldPos,
          end: inner.end,
        };
      }
      value =
        valueAlias === undefined
          ? v
          : { kind: "Alias", ident: valueAlias, expr: v, pos: pos(vs), end: v.end };
      let attributes: ast.Attribute[] | readonly ast.Attribute[] = noAttributes;
      if (ty() === "ATTR") {
        const list: ast.Attribute[] = [];
        while (ty() === "ATTR") list.push(attribute());
        attributes = list;
      }
      const e = attributes.length > 0 ? (attributes[attributes.length - 1]?.end ?? value.end) : value.end;
      return { kind: "Field", label, alias, constraint, value, attributes, pos: fieldPos, end: e };
    } finally {
      leave();
    }
  };

  const toLabel = (e: ast.Expr): ast.Label => {
    switch (e.kind) {
      case "Ident":
        if (e.name === "_") addError(e.pos.offset, "cannot use _ as label");
        return e;
      case "Null":
        return { kind: "Ident", name: "null", pos: e.pos, end: e.end };
      case "Bool":
        return { kind: "Ident", name: e.value ? "true" : "false", pos: e.pos, end: e.end };
      case "String":
        if (e.multiline) addError(e.pos.offset, "multiline strings cannot be used as labels");
        return e;
      case "Interpolation":
        if (e.bytes) addError(e.pos.offset, "bytes cannot be used as labels");
        return e;
      case "Paren":
        if (e.expr.kind === "Alias") {
          return { kind: "DynamicLabel", alias: e.expr.ident, expr: e.expr.expr, pos: e.pos, end: e.end };
        }
        return { kind: "DynamicLabel", expr: e.expr, pos: e.pos, end: e.end };
      case "List": {
        const only = e.elems[0];
        if (
          e.elems.length === 1 &&
          e.ellipsis === undefined &&
          only !== undefined &&
          only.kind !== "Comprehension"
        ) {
          if (only.kind === "Alias") {
            return { kind: "PatternLabel", alias: only.ident, expr: only.expr, pos: e.pos, end: e.end };
          }
          return { kind: "PatternLabel", expr: only, pos: e.pos, end: e.end };
        }
        break;
      }
      case "BadExpr":
        return { kind: "DynamicLabel", expr: e, pos: e.pos, end: e.end };
      default:
        break;
    }
    addError(e.pos.offset, "invalid label: expected identifier, string, (expr) or [pattern]");
    return {
      kind: "DynamicLabel",
      expr: { kind: "BadExpr", pos: e.pos, end: e.end },
      pos: e.pos,
      end: e.end,
    };
  };

  const ellipsis = (): ast.Ellipsis => {
    const s = tok.start;
    const e0 = tok.end;
    next();
    if (startsExpr(ty())) {
      const t = expr();
      return { kind: "Ellipsis", type: t, pos: pos(s), end: t.end };
    }
    return { kind: "Ellipsis", pos: pos(s), end: e0 };
  };

  const startsExpr = (t: TokenType): boolean =>
    t === "IDENT" ||
    t === "INT" ||
    t === "FLOAT" ||
    t === "STRING" ||
    t === "BOTTOM" ||
    t === "(" ||
    t === "[" ||
    t === "{" ||
    unaryOps.has(t);

  const letClause = (): ast.LetClause => {
    const s = tok.start;
    next(); // let
    const id = bindName();
    expect("=", "'='");
    const e = expr();
    return { kind: "Let", ident: id, expr: e, pos: pos(s), end: e.end };
  };

  const comprehension = (): ast.Comprehension => {
    const s = tok.start;
    enter();
    try {
      const clauses: ast.Clause[] = [];
      for (;;) {
        const kw = clauseKeyword();
        if (kw === undefined) break;
        if (kw === "let") {
          clauses.push(letClause());
        } else if (kw === "if") {
          const cs = tok.start;
          next();
          const c = expr();
          clauses.push({ kind: "If", condition: c, pos: pos(cs), end: c.end });
        } else {
          const cs = tok.start;
          next();
          let key: ast.Ident | undefined;
          let value = ident(tok);
          next();
          if (ty() === "," && !tok.implicit) {
            next();
            key = value;
            if (ty() !== "IDENT") addError(tok.start, `expected identifier, found ${describe(tok)}`);
            value = ident(tok);
            if (ty() === "IDENT") next();
          }
          if (!isIdent("in")) addError(tok.start, `expected 'in', found ${describe(tok)}`);
          else next();
          const src = expr();
          clauses.push({ kind: "For", key, value, source: src, pos: pos(cs), end: src.end });
        }
        if (ty() === "," && peekIsClause()) next();
      }
      if (ty() !== "{") {
        addError(tok.start, `expected '{' after comprehension clauses, found ${describe(tok)}`);
        const bad: ast.StructLit = {
          kind: "Struct",
          decls: [],
          implicit: true,
          pos: pos(tok.start),
          end: tok.start,
        };
        return { kind: "Comprehension", clauses, value: bad, pos: pos(s), end: tok.start };
      }
      const v = struct();
      return { kind: "Comprehension", clauses, value: v, pos: pos(s), end: v.end };
    } finally {
      leave();
    }
  };

  /** With `,` current: is the token after it another comprehension clause? */
  const peekIsClause = (): boolean => {
    const p = peek();
    if (p.type !== "IDENT") return false;
    const w = text.slice(p.start, p.end);
    return w === "for" || w === "if" || w === "let";
  };

  // ---- expressions -------------------------------------------------------------------------------

  const expr = (): ast.Expr => {
    enter();
    try {
      return binary(1);
    } finally {
      leave();
    }
  };

  const binary = (minPrec: number): ast.Expr => {
    let x = unary();
    for (;;) {
      const p = binaryPrec[ty()];
      if (p === undefined || p < minPrec) return x;
      const op = ty() as ast.BinaryOp;
      const opPos = pos(tok.start);
      next();
      enter();
      let y: ast.Expr;
      try {
        y = binary(p + 1);
      } finally {
        leave();
      }
      x = { kind: "Binary", op, left: x, right: y, opPos, pos: x.pos, end: y.end };
    }
  };

  const unary = (): ast.Expr => {
    if (unaryOps.has(ty())) {
      const s = tok.start;
      const op = ty() as ast.UnaryOp;
      next();
      enter();
      try {
        const x = unary();
        return { kind: "Unary", op, expr: x, pos: pos(s), end: x.end };
      } finally {
        leave();
      }
    }
    return primary();
  };

  const primary = (): ast.Expr => {
    let x = operand();
    for (;;) {
      switch (ty()) {
        case ".": {
          next();
          if (ty() === "IDENT") {
            x = { kind: "Selector", expr: x, sel: ident(tok), pos: x.pos, end: tok.end };
            next();
          } else if (ty() === "STRING") {
            const s = stringLit(tok);
            if (s.kind !== "String" || s.multiline)
              addError(tok.start, "selector must be an identifier or simple string");
            const sel: ast.StringLit =
              s.kind === "String"
                ? s
                : { kind: "String", value: "", multiline: false, pos: s.pos, end: s.end };
            x = { kind: "Selector", expr: x, sel, pos: x.pos, end: tok.end };
            next();
          } else {
            addError(tok.start, `expected selector, found ${describe(tok)}`);
            return x;
          }
          break;
        }
        case "[": {
          next();
          let low: ast.Expr | undefined;
          if (ty() !== ":") low = expr();
          if (ty() === ":") {
            next();
            const high = ty() === "]" ? undefined : expr();
            const e = tok.end;
            expect("]", "']'");
            x = { kind: "Slice", expr: x, low, high, pos: x.pos, end: e };
          } else {
            if (ty() === "," && !tok.implicit) next();
            const e = tok.end;
            expect("]", "']'");
            x = {
              kind: "Index",
              expr: x,
              index: low ?? { kind: "BadExpr", pos: pos(e), end: e },
              pos: x.pos,
              end: e,
            };
          }
          break;
        }
        case "(": {
          next();
          const args: ast.Expr[] = [];
          while (ty() !== ")" && ty() !== "EOF") {
            const before = tok.start;
            args.push(expr());
            if (ty() === ",") next();
            else if (ty() !== ")") {
              addError(tok.start, `missing ',' in argument list, found ${describe(tok)}`);
              sync(")");
            }
            if (tok.start === before && ty() !== ")") next();
          }
          const e = tok.end;
          expect(")", "')'");
          x = { kind: "Call", fn: x, args, pos: x.pos, end: e };
          break;
        }
        default:
          return x;
      }
    }
  };

  const operand = (): ast.Expr => {
    const t = tok;
    switch (t.type) {
      case "IDENT": {
        next();
        const name = tokText(t);
        if (name === "null") return { kind: "Null", pos: pos(t.start), end: t.end };
        if (name === "true" || name === "false") {
          return { kind: "Bool", value: name === "true", pos: pos(t.start), end: t.end };
        }
        return ident(t);
      }
      case "BOTTOM":
        next();
        return { kind: "Bottom", pos: pos(t.start), end: t.end };
      case "INT":
      case "FLOAT": {
        next();
        const raw = tokText(t);
        const v = decodeNumber(raw);
        switch (v.kind) {
          case "int":
            return { kind: "Int", value: v.value, raw, pos: pos(t.start), end: t.end };
          case "float":
            return { kind: "Float", value: v.value, text: v.text, raw, pos: pos(t.start), end: t.end };
          case "error":
            addError(t.start, v.message);
            return { kind: "BadExpr", pos: pos(t.start), end: t.end };
          default:
            return assertNever(v);
        }
      }
      case "STRING": {
        next();
        return stringLit(t);
      }
      case "{":
        return struct();
      case "[":
        return list();
      case "(": {
        next();
        let inner: ast.Expr;
        if (ty() === "IDENT" && peek().type === "=") {
          const id = bindName();
          next();
          const e = expr();
          inner = { kind: "Alias", ident: id, expr: e, pos: id.pos, end: e.end };
        } else {
          inner = expr();
        }
        const e = tok.end;
        expect(")", "')'");
        return { kind: "Paren", expr: inner, pos: pos(t.start), end: e };
      }
      default: {
        addError(t.start, `expected operand, found ${describe(t)}`);
        // Consume the offending token unless it closes something an outer rule is waiting for.
        if (t.type !== "EOF" && t.type !== "," && t.type !== "}" && t.type !== "]" && t.type !== ")") next();
        return { kind: "BadExpr", pos: pos(t.start), end: t.end };
      }
    }
  };

  const struct = (): ast.StructLit => {
    const s = tok.start;
    enter();
    try {
      next(); // {
      const decls = declList("}");
      const e = tok.end;
      if (ty() !== "}") addError(tok.start, `expected '}', found ${describe(tok)}`);
      else next();
      return { kind: "Struct", decls, implicit: false, pos: pos(s), end: e };
    } finally {
      leave();
    }
  };

  const list = (): ast.ListLit => {
    const s = tok.start;
    enter();
    try {
      next(); // [
      const elems: (ast.Expr | ast.Comprehension)[] = [];
      let ell: ast.Ellipsis | undefined;
      while (ty() !== "]" && ty() !== "EOF") {
        if (ty() === "," && tok.implicit) {
          next();
          continue;
        }
        const before = tok.start;
        if (ty() === "...") {
          if (ell !== undefined) addError(tok.start, "multiple ellipses in list");
          ell = ellipsis();
        } else {
          if (ell !== undefined) addError(tok.start, "ellipsis must be the last element of a list");
          const kw = clauseKeyword();
          if (kw === "for" || kw === "if") elems.push(comprehension());
          else if (ty() === "IDENT" && peek().type === "=") {
            const id = bindName();
            next();
            const e = expr();
            elems.push({ kind: "Alias", ident: id, expr: e, pos: id.pos, end: e.end });
          } else elems.push(expr());
        }
        if (ty() === ",") next();
        else if (ty() !== "]") {
          addError(tok.start, `missing ',' in list literal, found ${describe(tok)}`);
          sync("]");
        }
        if (tok.start === before && ty() !== "]") next();
      }
      const e = tok.end;
      if (ty() !== "]") addError(tok.start, `expected ']', found ${describe(tok)}`);
      else next();
      return { kind: "List", elems, ellipsis: ell, pos: pos(s), end: e };
    } finally {
      leave();
    }
  };

  const stringLit = (t: Token): ast.StringLit | ast.BytesLit | ast.Interpolation => {
    const info = t.str ?? { bytes: false, multiline: false, parts: [] };
    const p = pos(t.start);
    const parts0 = info.parts;
    if (parts0.length <= 1 && (parts0.length === 0 || typeof parts0[0] === "string")) {
      const v = (parts0[0] as string | undefined) ?? "";
      if (info.bytes)
        return { kind: "Bytes", value: binaryToBytes(v), multiline: info.multiline, pos: p, end: t.end };
      return { kind: "String", value: v, multiline: info.multiline, pos: p, end: t.end };
    }
    const parts: (string | ast.Expr)[] = info.parts.map((x) => (typeof x === "string" ? x : interpolated(x)));
    return { kind: "Interpolation", bytes: info.bytes, multiline: info.multiline, parts, pos: p, end: t.end };
  };

  const interpolated = (r: ExprRange): ast.Expr => {
    enter();
    try {
      const sub = createParser(ctx, r.start, r.end);
      return sub.wholeExpr();
    } finally {
      leave();
    }
  };

  /** An expression that must span the whole range. */
  const wholeExpr = (): ast.Expr => {
    if (ty() === "EOF") {
      addError(tok.start, "expected expression, found 'EOF'");
      return { kind: "BadExpr", pos: pos(tok.start), end: tok.start };
    }
    const e = expr();
    if (ty() === "," && tok.implicit) next();
    if (ty() !== "EOF") addError(tok.start, `unexpected ${describe(tok)} after expression`);
    return e;
  };

  return { file, wholeExpr };
}

function assertNever(x: never): never {
  throw new Error(`unexpected ${String(x)}`);
}
