/**
 * Declarations: struct bodies and their members — fields (with label forms, aliases, `?`/`!`
 * markers and the `a: b: c` shorthand), embeddings, `let`, `...`, attributes and comprehensions.
 */

import type * as ast from "./ast.js";
import { AliasNode, EmbedNode, IdentFieldNode, ImplicitStructNode, newField } from "./derived-nodes.js";
import type { TokenType } from "./lexer.js";
import { BadDeclNode, BadExprNode, IdentNode } from "./literal-nodes.js";
import {
  AttributeNode,
  ComprehensionNode,
  DynamicLabelNode,
  EllipsisNode,
  ForNode,
  IfNode,
  LetNode,
  MissingBodyNode,
  PatternLabelNode,
  StructNode,
  TryNode,
} from "./nodes.js";
import { expr, startsExpr } from "./parse-exprs.js";
import {
  addError,
  assignAt,
  atAlias,
  bindName,
  describe,
  empty,
  enter,
  expect,
  ident,
  isIdent,
  leave,
  mark,
  next,
  type ParserState,
  peek,
  push,
  skipTo,
  sync,
  take,
  ty,
} from "./parser-state.js";

/** Tokens after which `if`/`for`/`let` are plain identifiers (labels or references), not clauses. */
function followsIdent(t: TokenType): boolean {
  switch (t) {
    case ":":
    case "?":
    case "=":
    case ",":
    case "}":
    case "]":
    case ")":
    case "EOF":
    case ".":
    case "&":
    case "|":
      return true;
    default:
      return false;
  }
}

/** After a declaration: a comma, or the closing token. */
export function endOfDecl(ps: ParserState, closing: TokenType, what: string): void {
  if (ty(ps) === ",") {
    next(ps);
    return;
  }
  if (ty(ps) === closing) return;
  addError(ps, ps.sc.start, `missing ',' after ${what}, found ${describe(ps)}`);
  sync(ps, closing);
}

/** Declarations up to `closing`, pushed onto the list under construction (see `mark`/`take`). */
export function declList(ps: ParserState, closing: "}" | "EOF"): void {
  while (ty(ps) !== closing && ty(ps) !== "EOF") {
    if (ty(ps) === "," && ps.sc.implicit) {
      next(ps);
      continue;
    }
    const before = ps.sc.start;
    push(ps, decl(ps));
    if (ty(ps) === ",") next(ps);
    else if (ty(ps) !== closing) {
      addError(
        ps,
        ps.sc.start,
        closing === "}"
          ? `missing ',' in struct literal, found ${describe(ps)}`
          : `expected ',' or newline after declaration, found ${describe(ps)}`,
      );
      sync(ps, closing);
    }
    if (ps.sc.start === before && ty(ps) !== closing && ty(ps) !== "EOF") next(ps);
  }
}

export function attribute(ps: ParserState): ast.Attribute {
  const sc = ps.sc;
  const s = sc.start;
  const e = sc.end;
  const a = sc.attr;
  next(ps);
  return a === undefined
    ? new AttributeNode(ps.source, s, e, "", "", s)
    : new AttributeNode(ps.source, s, e, a.name, a.body, a.bodyOffset);
}

export function clauseKeyword(ps: ParserState): "for" | "if" | "let" | "try" | undefined {
  const sc = ps.sc;
  if (sc.type !== "IDENT") return undefined;
  // This runs for every declaration: compare the keyword the scanner found, not the name.
  const w = sc.keyword;
  if (w === "") return undefined;
  if (w === "for" || w === "let") return peek(ps) === "IDENT" ? w : undefined;
  if (w === "if") return followsIdent(peek(ps)) ? undefined : "if";
  // `try {` or `try x = …` (the try experiment); `try: 1` stays a field.
  if (w === "try") {
    const t = peek(ps);
    return t === "{" || (t === "IDENT" && assignAt(ps, sc.peekEnd())) ? "try" : undefined;
  }
  return undefined;
}

export function decl(ps: ParserState): ast.Decl {
  switch (ty(ps)) {
    case "ATTR":
      return attribute(ps);
    case "...":
      return ellipsis(ps);
    default:
      break;
  }
  if (atPlainLabel(ps)) return identField(ps);
  const kw = clauseKeyword(ps);
  if (kw === "let") return letClause(ps);
  if (kw === "for" || kw === "if" || kw === "try") return comprehension(ps);
  // A label and an expression start alike: parse an expression, then look at what follows.
  let alias: ast.Ident | undefined;
  if (atAlias(ps)) {
    alias = bindName(ps);
    next(ps);
  }
  const e = expr(ps);
  let key: ast.Ident | undefined;
  const tilde = ty(ps) === "~";
  if (tilde) {
    const a = postfixAlias(ps);
    alias ??= a.field;
    key = a.key;
  }
  const marker = fieldMarker(ps);
  if (marker !== undefined) return field(ps, e, alias, marker, key);
  if (tilde) addError(ps, ps.sc.start, `expected ':' after alias, found ${describe(ps)}`);
  if (alias !== undefined) return new EmbedNode(new AliasNode(alias, e));
  if (e.kind === "BadExpr") return new BadDeclNode(ps.source, e.pos.offset, e.end);
  return new EmbedNode(e);
}

/** `:`, `?:` or `!:` after a label; consumes the marker but not the colon. */
export function fieldMarker(ps: ParserState): ast.FieldConstraint | undefined {
  const t = ty(ps);
  if (t === ":") return "regular";
  if ((t === "?" || t === "!") && peek(ps) === ":") {
    next(ps);
    return t === "?" ? "optional" : "required";
  }
  return undefined;
}

/**
 * The field whose label expression `labelExpr` was parsed (its position is the alias's, else the
 * label's, so none is passed).
 */
export function field(
  ps: ParserState,
  labelExpr: ast.Expr,
  alias: ast.Ident | undefined,
  constraint: ast.FieldConstraint,
  key?: ast.Ident,
): ast.Field {
  enter(ps);
  let label = toLabel(ps, labelExpr);
  // `(expr)~(K,V)` and `[expr]~(K,V)`: K is the label's alias; a fixed label keeps it on the field.
  let keyAlias: ast.Ident | undefined;
  if (key !== undefined) {
    if (label.kind === "DynamicLabel") {
      label = new DynamicLabelNode(ps.source, label.pos.offset, label.end, key, label.expr);
    } else if (label.kind === "PatternLabel") {
      label = new PatternLabelNode(ps.source, label.pos.offset, label.end, key, label.expr);
    } else keyAlias = key;
  }
  if (label.kind === "PatternLabel" && constraint !== "regular") {
    addError(ps, labelExpr.end, "pattern constraints cannot be optional or required");
  }
  expect(ps, ":", "':'");
  return fieldValue(ps, label, "", 0, alias, constraint, keyAlias);
}

/**
 * Whether the current token is an identifier label directly followed by `:` (`name: v`, the most
 * common declaration): then the label needs neither the expression parser nor a node of its own.
 * Words the parser gives a meaning to (`for`, `_`, `null`...) take the general path.
 */
function atPlainLabel(ps: ParserState): boolean {
  const sc = ps.sc;
  return sc.type === "IDENT" && sc.keyword === "" && ps.text.charCodeAt(sc.end) === 58;
}

/** `name: value` where {@link atPlainLabel} holds: a field whose label is made only when read. */
function identField(ps: ParserState): ast.Field {
  const sc = ps.sc;
  const s = sc.start;
  const name = sc.value;
  // The nesting the field counts (a limit error is reported at the label, as for other fields).
  enter(ps);
  // The label and its `:` in one step: the scanner resumes after the colon.
  skipTo(ps, sc.end + 1);
  return fieldValue(ps, undefined, name, s, undefined, "regular", undefined);
}

/**
 * The rest of a field after its `:`: the value (or the `a: b: c` shorthand) and attributes. A
 * `label` of undefined stands for the identifier `name` at `offset` (see {@link identField}).
 * Leaves the nesting level the caller entered.
 */
function fieldValue(
  ps: ParserState,
  label: ast.Label | undefined,
  name: string,
  offset: number,
  alias: ast.Ident | undefined,
  constraint: ast.FieldConstraint,
  keyAlias: ast.Ident | undefined,
): ast.Field {
  if (atPlainLabel(ps)) {
    // `a: b: v`, with `b` a plain identifier label.
    const inner = identField(ps);
    leave(ps);
    return makeField(
      ps,
      label,
      name,
      offset,
      alias,
      constraint,
      new ImplicitStructNode(inner),
      empty,
      keyAlias,
    );
  }
  let valueAlias: ast.Ident | undefined;
  if (atAlias(ps)) {
    valueAlias = bindName(ps);
    next(ps);
  }
  const kw = clauseKeyword(ps);
  if (kw === "for" || kw === "if" || kw === "let") {
    addError(ps, ps.sc.start, `expected expression, found '${kw}' clause (wrap comprehensions in {})`);
    const bad = new BadExprNode(ps.source, ps.sc.start, ps.sc.end);
    sync(ps, "}");
    leave(ps);
    return makeField(ps, label, name, offset, alias, constraint, bad, empty, keyAlias);
  }
  const v = expr(ps);
  // `a: b~X: c` (aliasv2) in the shorthand for nested fields.
  let innerKey: ast.Ident | undefined;
  if (ty(ps) === "~" && valueAlias === undefined) {
    const a = postfixAlias(ps);
    valueAlias = a.field;
    innerKey = a.key;
  }
  const m = fieldMarker(ps);
  if (m !== undefined) {
    const inner = field(ps, v, valueAlias, m, innerKey);
    leave(ps);
    return makeField(
      ps,
      label,
      name,
      offset,
      alias,
      constraint,
      new ImplicitStructNode(inner),
      empty,
      keyAlias,
    );
  }
  const value = valueAlias === undefined ? v : new AliasNode(valueAlias, v);
  let attributes: readonly ast.Attribute[] = empty;
  if (ty(ps) === "ATTR") {
    const am = mark(ps);
    while (ty(ps) === "ATTR") push(ps, attribute(ps));
    attributes = take<ast.Attribute>(ps, am);
  }
  leave(ps);
  return makeField(ps, label, name, offset, alias, constraint, value, attributes, keyAlias);
}

/** {@link newField}, with a `label` of undefined standing for the identifier `name` at `offset`. */
function makeField(
  ps: ParserState,
  label: ast.Label | undefined,
  name: string,
  offset: number,
  alias: ast.Ident | undefined,
  constraint: ast.FieldConstraint,
  value: ast.Expr,
  attributes: readonly ast.Attribute[],
  keyAlias: ast.Ident | undefined,
): ast.Field {
  if (label !== undefined) return newField(label, alias, constraint, value, attributes, keyAlias);
  if (alias === undefined && constraint === "regular" && attributes.length === 0 && keyAlias === undefined)
    return new IdentFieldNode(offset, name, value);
  return newField(new IdentNode(ps.source, offset, name), alias, constraint, value, attributes, keyAlias);
}

/**
 * `~X` or `~(K,V)` after a label (aliasv2): X and V name the field, K its label; `_` binds
 * nothing. The current token is `~`.
 */
function postfixAlias(ps: ParserState): { field: ast.Ident | undefined; key: ast.Ident | undefined } {
  next(ps);
  const one = (): ast.Ident | undefined => {
    if (ty(ps) !== "IDENT") {
      addError(ps, ps.sc.start, `expected identifier in alias, found ${describe(ps)}`);
      return undefined;
    }
    // `_` binds nothing: compare the keyword the scanner found.
    const blank = ps.sc.keyword === "_";
    const id = blank ? undefined : ident(ps);
    next(ps);
    return id;
  };
  if (ty(ps) !== "(") return { field: one(), key: undefined };
  next(ps);
  const key = one();
  if (ty(ps) === ",") {
    next(ps);
    const field = one();
    expect(ps, ")", "')'");
    return { field, key };
  }
  // `label~(X)` is `label~X`.
  expect(ps, ")", "')'");
  return { field: key, key: undefined };
}

export function toLabel(ps: ParserState, e: ast.Expr): ast.Label {
  switch (e.kind) {
    case "Ident":
      if (e.name.length === 1 && e.name === "_")
        addError(ps, e.pos.offset, "cannot use _ as label", "syntax", true);
      return e;
    case "Null":
      return new IdentNode(ps.source, e.pos.offset, "null");
    case "Bool":
      return new IdentNode(ps.source, e.pos.offset, e.value ? "true" : "false");
    case "String":
      if (e.multiline) addError(ps, e.pos.offset, "multiline strings cannot be used as labels");
      return e;
    case "Interpolation":
      if (e.bytes) addError(ps, e.pos.offset, "bytes cannot be used as labels");
      return e;
    case "Paren":
      if (e.expr.kind === "Alias") {
        return new DynamicLabelNode(ps.source, e.pos.offset, e.end, e.expr.ident, e.expr.expr);
      }
      return new DynamicLabelNode(ps.source, e.pos.offset, e.end, undefined, e.expr);
    case "List": {
      const only = e.elems[0];
      if (
        e.elems.length === 1 &&
        e.ellipsis === undefined &&
        only !== undefined &&
        only.kind !== "Comprehension"
      ) {
        if (only.kind === "Alias") {
          return new PatternLabelNode(ps.source, e.pos.offset, e.end, only.ident, only.expr);
        }
        return new PatternLabelNode(ps.source, e.pos.offset, e.end, undefined, only);
      }
      // cue's compiler refuses a comprehension as the pattern.
      if (e.elems.length === 1 && only?.kind === "Comprehension") {
        addError(ps, only.pos.offset, "comprehension values not allowed in this position", "syntax", true);
        return new DynamicLabelNode(
          ps.source,
          e.pos.offset,
          e.end,
          undefined,
          new BadExprNode(ps.source, e.pos.offset, e.end),
        );
      }
      break;
    }
    case "BadExpr":
      return new DynamicLabelNode(ps.source, e.pos.offset, e.end, undefined, e);
    default:
      break;
  }
  addError(ps, e.pos.offset, "invalid label: expected identifier, string, (expr) or [pattern]");
  return new DynamicLabelNode(
    ps.source,
    e.pos.offset,
    e.end,
    undefined,
    new BadExprNode(ps.source, e.pos.offset, e.end),
  );
}

export function ellipsis(ps: ParserState): ast.Ellipsis {
  const s = ps.sc.start;
  const e0 = ps.sc.end;
  next(ps);
  if (startsExpr(ty(ps))) {
    const t = expr(ps);
    return new EllipsisNode(ps.source, s, t.end, t);
  }
  return new EllipsisNode(ps.source, s, e0, undefined);
}

export function letClause(ps: ParserState): ast.LetClause {
  const s = ps.sc.start;
  next(ps); // let
  const id = bindName(ps);
  expect(ps, "=", "'='");
  return new LetNode(ps.source, s, id, expr(ps));
}

export function comprehension(ps: ParserState): ast.Comprehension {
  const s = ps.sc.start;
  enter(ps);
  const m = mark(ps);
  for (;;) {
    const kw = clauseKeyword(ps);
    if (kw === undefined) break;
    if (kw === "let") {
      push(ps, letClause(ps));
    } else if (kw === "try") {
      const cs = ps.sc.start;
      next(ps);
      if (ty(ps) === "{") {
        // The struct form `try { … }` ends the clauses: its body is the comprehension's.
        push(ps, new TryNode(ps.source, cs, undefined, undefined));
        break;
      }
      const id = ident(ps);
      next(ps);
      expect(ps, "=", "'='");
      push(ps, new TryNode(ps.source, cs, id, expr(ps)));
    } else if (kw === "if") {
      const cs = ps.sc.start;
      next(ps);
      push(ps, new IfNode(ps.source, cs, expr(ps)));
    } else {
      const cs = ps.sc.start;
      next(ps);
      let key: ast.Ident | undefined;
      let value = ident(ps);
      next(ps);
      if (ty(ps) === "," && !ps.sc.implicit) {
        next(ps);
        key = value;
        if (ty(ps) !== "IDENT") addError(ps, ps.sc.start, `expected identifier, found ${describe(ps)}`);
        value = ident(ps);
        if (ty(ps) === "IDENT") next(ps);
      }
      if (!isIdent(ps, "in")) addError(ps, ps.sc.start, `expected 'in', found ${describe(ps)}`);
      else next(ps);
      push(ps, new ForNode(ps.source, cs, key, value, expr(ps)));
    }
    if (ty(ps) === "," && peekIsClause(ps)) next(ps);
  }
  const clauses = take<ast.Clause>(ps, m);
  if (ty(ps) !== "{") {
    addError(ps, ps.sc.start, `expected '{' after comprehension clauses, found ${describe(ps)}`);
    const at = ps.sc.start;
    leave(ps);
    return new ComprehensionNode(ps.source, s, at, clauses, badStruct(ps, at));
  }
  const v = struct(ps);
  // `else { … }` / `fallback { … }` (the try experiment): the result when nothing was produced.
  let fallback: ast.StructLit | undefined;
  if ((isIdent(ps, "else") || isIdent(ps, "fallback") || isIdent(ps, "otherwise")) && peek(ps) === "{") {
    next(ps);
    fallback = struct(ps);
  }
  leave(ps);
  return new ComprehensionNode(ps.source, s, (fallback ?? v).end, clauses, v, fallback);
}

/** The empty stand-in body of a comprehension whose `{` is missing. */
function badStruct(ps: ParserState, at: number): ast.StructLit {
  return new MissingBodyNode(ps.source, at, at, empty);
}

/** With `,` current: is the token after it another comprehension clause? */
export function peekIsClause(ps: ParserState): boolean {
  if (peek(ps) !== "IDENT") return false;
  const w = ps.sc.peekKeyword();
  return w === "for" || w === "if" || w === "let" || w === "try";
}

export function struct(ps: ParserState): ast.StructLit {
  const s = ps.sc.start;
  enter(ps);
  next(ps); // {
  const m = mark(ps);
  declList(ps, "}");
  const decls = take<ast.Decl>(ps, m);
  const e = ps.sc.end;
  if (ty(ps) !== "}") addError(ps, ps.sc.start, `expected '}', found ${describe(ps)}`);
  else next(ps);
  leave(ps);
  return new StructNode(ps.source, s, e, decls);
}
