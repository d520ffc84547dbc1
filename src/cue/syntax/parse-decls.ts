/**
 * Declarations: struct bodies and their members — fields (with label forms, aliases, `?`/`!`
 * markers and the `a: b: c` shorthand), embeddings, `let`, `...`, attributes and comprehensions.
 */

import type * as ast from "./ast.js";
import type { TokenType } from "./lexer.js";
import { expr, startsExpr } from "./parse-exprs.js";
import {
  addError,
  bindName,
  describe,
  enter,
  expect,
  ident,
  isIdent,
  leave,
  next,
  type ParserState,
  peek,
  pos,
  sync,
  tokText,
  ty,
} from "./parser-state.js";

/** Shared by every field without attributes (most of them), to keep large trees small. */
const noAttributes: readonly ast.Attribute[] = Object.freeze([]);

/** Tokens after which `if`/`for`/`let` are plain identifiers (labels or references), not clauses. */
const identFollowers = new Set<TokenType>([":", "?", "=", ",", "}", "]", ")", "EOF", ".", "&", "|"]);

/** After a declaration: a comma, or the closing token. */
export function endOfDecl(ps: ParserState, closing: TokenType, what: string): void {
  if (ty(ps) === ",") {
    next(ps);
    return;
  }
  if (ty(ps) === closing) return;
  addError(ps, ps.tok.start, `missing ',' after ${what}, found ${describe(ps, ps.tok)}`);
  sync(ps, closing);
}

export function declList(ps: ParserState, closing: "}" | "EOF"): ast.Decl[] {
  const decls: ast.Decl[] = [];
  while (ty(ps) !== closing && ty(ps) !== "EOF") {
    if (ty(ps) === "," && ps.tok.implicit) {
      next(ps);
      continue;
    }
    const before = ps.tok.start;
    decls.push(decl(ps));
    if (ty(ps) === ",") next(ps);
    else if (ty(ps) !== closing) {
      addError(
        ps,
        ps.tok.start,
        closing === "}"
          ? `missing ',' in struct literal, found ${describe(ps, ps.tok)}`
          : `expected ',' or newline after declaration, found ${describe(ps, ps.tok)}`,
      );
      sync(ps, closing);
    }
    if (ps.tok.start === before && ty(ps) !== closing && ty(ps) !== "EOF") next(ps);
  }
  return decls;
}

export function attribute(ps: ParserState): ast.Attribute {
  const t = ps.tok;
  next(ps);
  const a = t.attr ?? { name: "", body: "", bodyOffset: t.start };
  return {
    kind: "Attribute",
    name: a.name,
    body: a.body,
    bodyOffset: a.bodyOffset,
    pos: pos(ps, t.start),
    end: t.end,
  };
}

export function clauseKeyword(ps: ParserState): "for" | "if" | "let" | undefined {
  if (ty(ps) !== "IDENT") return undefined;
  // Cheap test first: this runs for every declaration.
  const len = ps.tok.end - ps.tok.start;
  const c0 = ps.text.charCodeAt(ps.tok.start);
  if (!((len === 3 && (c0 === 102 || c0 === 108)) || (len === 2 && c0 === 105))) return undefined;
  const w = tokText(ps, ps.tok);
  if (w !== "for" && w !== "if" && w !== "let") return undefined;
  const p = peek(ps);
  if (w === "for" || w === "let") return p.type === "IDENT" ? w : undefined;
  return identFollowers.has(p.type) ? undefined : "if";
}

export function decl(ps: ParserState): ast.Decl {
  const s = ps.tok.start;
  switch (ty(ps)) {
    case "ATTR":
      return attribute(ps);
    case "...":
      return ellipsis(ps);
    default:
      break;
  }
  const kw = clauseKeyword(ps);
  if (kw === "let") return letClause(ps);
  if (kw === "for" || kw === "if") return comprehension(ps);
  // A label and an expression start alike: parse an expression, then look at what follows.
  let alias: ast.Ident | undefined;
  if (ty(ps) === "IDENT" && peek(ps).type === "=") {
    alias = bindName(ps);
    next(ps);
  }
  const e = expr(ps);
  const marker = fieldMarker(ps);
  if (marker !== undefined) return field(ps, e, alias, marker, s);
  if (alias !== undefined) {
    return {
      kind: "Embed",
      expr: { kind: "Alias", ident: alias, expr: e, pos: pos(ps, s), end: e.end },
      pos: pos(ps, s),
      end: e.end,
    };
  }
  if (e.kind === "BadExpr") return { kind: "BadDecl", pos: e.pos, end: e.end };
  return { kind: "Embed", expr: e, pos: e.pos, end: e.end };
}

/** `:`, `?:` or `!:` after a label; consumes the marker but not the colon. */
export function fieldMarker(ps: ParserState): ast.FieldConstraint | undefined {
  if (ty(ps) === ":") return "regular";
  if ((ty(ps) === "?" || ty(ps) === "!") && peek(ps).type === ":") {
    const c = ty(ps) === "?" ? "optional" : "required";
    next(ps);
    return c;
  }
  return undefined;
}

export function field(
  ps: ParserState,
  labelExpr: ast.Expr,
  alias: ast.Ident | undefined,
  constraint: ast.FieldConstraint,
  s: number,
): ast.Field {
  enter(ps);
  try {
    const label = toLabel(ps, labelExpr);
    // Share the label's position object when the field starts at its label (no alias).
    const fieldPos = labelExpr.pos.offset === s ? labelExpr.pos : pos(ps, s);
    if (label.kind === "PatternLabel" && constraint !== "regular") {
      addError(ps, labelExpr.end, "pattern constraints cannot be optional or required");
    }
    expect(ps, ":", "':'");
    const vs = ps.tok.start;
    let valueAlias: ast.Ident | undefined;
    if (ty(ps) === "IDENT" && peek(ps).type === "=") {
      valueAlias = bindName(ps);
      next(ps);
    }
    let value: ast.Expr;
    const kw = clauseKeyword(ps);
    if (kw === "for" || kw === "if" || kw === "let") {
      addError(ps, ps.tok.start, `expected expression, found '${kw}' clause (wrap comprehensions in {})`);
      value = { kind: "BadExpr", pos: pos(ps, ps.tok.start), end: ps.tok.end };
      sync(ps, "}");
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
    const v = expr(ps);
    const m = fieldMarker(ps);
    if (m !== undefined) {
      const inner = field(ps, v, valueAlias, m, vs);
      value = { kind: "Struct", decls: [inner], implicit: true, pos: pos(ps, vs), end: inner.end };
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
        : { kind: "Alias", ident: valueAlias, expr: v, pos: pos(ps, vs), end: v.end };
    let attributes: ast.Attribute[] | readonly ast.Attribute[] = noAttributes;
    if (ty(ps) === "ATTR") {
      const list: ast.Attribute[] = [];
      while (ty(ps) === "ATTR") list.push(attribute(ps));
      attributes = list;
    }
    const e = attributes.length > 0 ? (attributes[attributes.length - 1]?.end ?? value.end) : value.end;
    return { kind: "Field", label, alias, constraint, value, attributes, pos: fieldPos, end: e };
  } finally {
    leave(ps);
  }
}

export function toLabel(ps: ParserState, e: ast.Expr): ast.Label {
  switch (e.kind) {
    case "Ident":
      if (e.name === "_") addError(ps, e.pos.offset, "cannot use _ as label");
      return e;
    case "Null":
      return { kind: "Ident", name: "null", pos: e.pos, end: e.end };
    case "Bool":
      return { kind: "Ident", name: e.value ? "true" : "false", pos: e.pos, end: e.end };
    case "String":
      if (e.multiline) addError(ps, e.pos.offset, "multiline strings cannot be used as labels");
      return e;
    case "Interpolation":
      if (e.bytes) addError(ps, e.pos.offset, "bytes cannot be used as labels");
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
  addError(ps, e.pos.offset, "invalid label: expected identifier, string, (expr) or [pattern]");
  return {
    kind: "DynamicLabel",
    expr: { kind: "BadExpr", pos: e.pos, end: e.end },
    pos: e.pos,
    end: e.end,
  };
}

export function ellipsis(ps: ParserState): ast.Ellipsis {
  const s = ps.tok.start;
  const e0 = ps.tok.end;
  next(ps);
  if (startsExpr(ty(ps))) {
    const t = expr(ps);
    return { kind: "Ellipsis", type: t, pos: pos(ps, s), end: t.end };
  }
  return { kind: "Ellipsis", pos: pos(ps, s), end: e0 };
}

export function letClause(ps: ParserState): ast.LetClause {
  const s = ps.tok.start;
  next(ps); // let
  const id = bindName(ps);
  expect(ps, "=", "'='");
  const e = expr(ps);
  return { kind: "Let", ident: id, expr: e, pos: pos(ps, s), end: e.end };
}

export function comprehension(ps: ParserState): ast.Comprehension {
  const s = ps.tok.start;
  enter(ps);
  try {
    const clauses: ast.Clause[] = [];
    for (;;) {
      const kw = clauseKeyword(ps);
      if (kw === undefined) break;
      if (kw === "let") {
        clauses.push(letClause(ps));
      } else if (kw === "if") {
        const cs = ps.tok.start;
        next(ps);
        const c = expr(ps);
        clauses.push({ kind: "If", condition: c, pos: pos(ps, cs), end: c.end });
      } else {
        const cs = ps.tok.start;
        next(ps);
        let key: ast.Ident | undefined;
        let value = ident(ps, ps.tok);
        next(ps);
        if (ty(ps) === "," && !ps.tok.implicit) {
          next(ps);
          key = value;
          if (ty(ps) !== "IDENT")
            addError(ps, ps.tok.start, `expected identifier, found ${describe(ps, ps.tok)}`);
          value = ident(ps, ps.tok);
          if (ty(ps) === "IDENT") next(ps);
        }
        if (!isIdent(ps, "in")) addError(ps, ps.tok.start, `expected 'in', found ${describe(ps, ps.tok)}`);
        else next(ps);
        const src = expr(ps);
        clauses.push({ kind: "For", key, value, source: src, pos: pos(ps, cs), end: src.end });
      }
      if (ty(ps) === "," && peekIsClause(ps)) next(ps);
    }
    if (ty(ps) !== "{") {
      addError(ps, ps.tok.start, `expected '{' after comprehension clauses, found ${describe(ps, ps.tok)}`);
      const bad: ast.StructLit = {
        kind: "Struct",
        decls: [],
        implicit: true,
        pos: pos(ps, ps.tok.start),
        end: ps.tok.start,
      };
      return { kind: "Comprehension", clauses, value: bad, pos: pos(ps, s), end: ps.tok.start };
    }
    const v = struct(ps);
    return { kind: "Comprehension", clauses, value: v, pos: pos(ps, s), end: v.end };
  } finally {
    leave(ps);
  }
}

/** With `,` current: is the token after it another comprehension clause? */
export function peekIsClause(ps: ParserState): boolean {
  const p = peek(ps);
  if (p.type !== "IDENT") return false;
  const w = ps.text.slice(p.start, p.end);
  return w === "for" || w === "if" || w === "let";
}

export function struct(ps: ParserState): ast.StructLit {
  const s = ps.tok.start;
  enter(ps);
  try {
    next(ps); // {
    const decls = declList(ps, "}");
    const e = ps.tok.end;
    if (ty(ps) !== "}") addError(ps, ps.tok.start, `expected '}', found ${describe(ps, ps.tok)}`);
    else next(ps);
    return { kind: "Struct", decls, implicit: false, pos: pos(ps, s), end: e };
  } finally {
    leave(ps);
  }
}
