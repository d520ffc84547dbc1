/**
 * Expressions: binary operators by CUE precedence, unary operators and bounds, selectors, indexes,
 * slices and calls, operands (literals, structs, lists, parentheses) and string interpolation.
 */

import type * as ast from "./ast.js";
import type { Token, TokenType } from "./lexer.js";
import { decodeNumber } from "./number-lit.js";
import { clauseKeyword, comprehension, ellipsis, struct } from "./parse-decls.js";
import {
  addError,
  assertNever,
  bindName,
  createState,
  describe,
  enter,
  expect,
  ident,
  leave,
  next,
  type ParserState,
  peek,
  pos,
  sync,
  tokText,
  ty,
} from "./parser-state.js";
import { binaryToBytes, type ExprRange } from "./string-lit.js";

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

export function startsExpr(t: TokenType): boolean {
  return (
    t === "IDENT" ||
    t === "INT" ||
    t === "FLOAT" ||
    t === "STRING" ||
    t === "BOTTOM" ||
    t === "(" ||
    t === "[" ||
    t === "{" ||
    unaryOps.has(t)
  );
}

export function expr(ps: ParserState): ast.Expr {
  enter(ps);
  try {
    return binary(ps, 1);
  } finally {
    leave(ps);
  }
}

export function binary(ps: ParserState, minPrec: number): ast.Expr {
  let x = unary(ps);
  for (;;) {
    const p = binaryPrec[ty(ps)];
    if (p === undefined || p < minPrec) return x;
    const op = ty(ps) as ast.BinaryOp;
    const opPos = pos(ps, ps.tok.start);
    next(ps);
    enter(ps);
    let y: ast.Expr;
    try {
      y = binary(ps, p + 1);
    } finally {
      leave(ps);
    }
    x = { kind: "Binary", op, left: x, right: y, opPos, pos: x.pos, end: y.end };
  }
}

export function unary(ps: ParserState): ast.Expr {
  if (unaryOps.has(ty(ps))) {
    const s = ps.tok.start;
    const op = ty(ps) as ast.UnaryOp;
    next(ps);
    enter(ps);
    try {
      const x = unary(ps);
      return { kind: "Unary", op, expr: x, pos: pos(ps, s), end: x.end };
    } finally {
      leave(ps);
    }
  }
  return primary(ps);
}

export function primary(ps: ParserState): ast.Expr {
  let x = operand(ps);
  for (;;) {
    switch (ty(ps)) {
      case ".": {
        next(ps);
        if (ty(ps) === "IDENT") {
          x = { kind: "Selector", expr: x, sel: ident(ps, ps.tok), pos: x.pos, end: ps.tok.end };
          next(ps);
        } else if (ty(ps) === "STRING") {
          const s = stringLit(ps, ps.tok);
          if (s.kind !== "String" || s.multiline)
            addError(ps, ps.tok.start, "selector must be an identifier or simple string");
          const sel: ast.StringLit =
            s.kind === "String" ? s : { kind: "String", value: "", multiline: false, pos: s.pos, end: s.end };
          x = { kind: "Selector", expr: x, sel, pos: x.pos, end: ps.tok.end };
          next(ps);
        } else {
          addError(ps, ps.tok.start, `expected selector, found ${describe(ps, ps.tok)}`);
          return x;
        }
        break;
      }
      case "[": {
        next(ps);
        let low: ast.Expr | undefined;
        if (ty(ps) !== ":") low = expr(ps);
        if (ty(ps) === ":") {
          next(ps);
          const high = ty(ps) === "]" ? undefined : expr(ps);
          const e = ps.tok.end;
          expect(ps, "]", "']'");
          x = { kind: "Slice", expr: x, low, high, pos: x.pos, end: e };
        } else {
          if (ty(ps) === "," && !ps.tok.implicit) next(ps);
          const e = ps.tok.end;
          expect(ps, "]", "']'");
          x = {
            kind: "Index",
            expr: x,
            index: low ?? { kind: "BadExpr", pos: pos(ps, e), end: e },
            pos: x.pos,
            end: e,
          };
        }
        break;
      }
      case "(": {
        next(ps);
        const args: ast.Expr[] = [];
        while (ty(ps) !== ")" && ty(ps) !== "EOF") {
          const before = ps.tok.start;
          args.push(expr(ps));
          if (ty(ps) === ",") next(ps);
          else if (ty(ps) !== ")") {
            addError(ps, ps.tok.start, `missing ',' in argument list, found ${describe(ps, ps.tok)}`);
            sync(ps, ")");
          }
          if (ps.tok.start === before && ty(ps) !== ")") next(ps);
        }
        const e = ps.tok.end;
        expect(ps, ")", "')'");
        x = { kind: "Call", fn: x, args, pos: x.pos, end: e };
        break;
      }
      case "...": {
        // Postfix `x...` (explicitopen); the evaluator rejects it in files without the experiment.
        const e = ps.tok.end;
        next(ps);
        x = { kind: "Postfix", op: "...", expr: x, pos: x.pos, end: e };
        break;
      }
      default:
        return x;
    }
  }
}

export function operand(ps: ParserState): ast.Expr {
  const t = ps.tok;
  switch (t.type) {
    case "IDENT": {
      next(ps);
      const name = tokText(ps, t);
      if (name === "null") return { kind: "Null", pos: pos(ps, t.start), end: t.end };
      if (name === "true" || name === "false") {
        return { kind: "Bool", value: name === "true", pos: pos(ps, t.start), end: t.end };
      }
      return { kind: "Ident", name, pos: pos(ps, t.start), end: t.end };
    }
    case "BOTTOM":
      next(ps);
      return { kind: "Bottom", pos: pos(ps, t.start), end: t.end };
    case "INT":
    case "FLOAT": {
      next(ps);
      const raw = tokText(ps, t);
      const v = decodeNumber(raw);
      switch (v.kind) {
        case "int":
          return { kind: "Int", value: v.value, raw, pos: pos(ps, t.start), end: t.end };
        case "float":
          return { kind: "Float", value: v.value, text: v.text, raw, pos: pos(ps, t.start), end: t.end };
        case "error":
          addError(ps, t.start, v.message);
          return { kind: "BadExpr", pos: pos(ps, t.start), end: t.end };
        default:
          return assertNever(v);
      }
    }
    case "STRING": {
      next(ps);
      return stringLit(ps, t);
    }
    case "{":
      return struct(ps);
    case "[":
      return list(ps);
    case "(": {
      next(ps);
      let inner: ast.Expr;
      if (ty(ps) === "IDENT" && peek(ps).type === "=") {
        const id = bindName(ps);
        next(ps);
        const e = expr(ps);
        inner = { kind: "Alias", ident: id, expr: e, pos: id.pos, end: e.end };
      } else {
        inner = expr(ps);
      }
      const e = ps.tok.end;
      expect(ps, ")", "')'");
      return { kind: "Paren", expr: inner, pos: pos(ps, t.start), end: e };
    }
    default: {
      addError(ps, t.start, `expected operand, found ${describe(ps, t)}`);
      // Consume the offending token unless it closes something an outer rule is waiting for.
      if (t.type !== "EOF" && t.type !== "," && t.type !== "}" && t.type !== "]" && t.type !== ")") next(ps);
      return { kind: "BadExpr", pos: pos(ps, t.start), end: t.end };
    }
  }
}

export function list(ps: ParserState): ast.ListLit {
  const s = ps.tok.start;
  enter(ps);
  try {
    next(ps); // [
    const elems: (ast.Expr | ast.Comprehension)[] = [];
    let ell: ast.Ellipsis | undefined;
    while (ty(ps) !== "]" && ty(ps) !== "EOF") {
      if (ty(ps) === "," && ps.tok.implicit) {
        next(ps);
        continue;
      }
      const before = ps.tok.start;
      if (ty(ps) === "...") {
        if (ell !== undefined) addError(ps, ps.tok.start, "multiple ellipses in list");
        ell = ellipsis(ps);
      } else {
        if (ell !== undefined) addError(ps, ps.tok.start, "ellipsis must be the last element of a list");
        const kw = clauseKeyword(ps);
        if (kw === "for" || kw === "if") elems.push(comprehension(ps));
        else if (ty(ps) === "IDENT" && peek(ps).type === "=") {
          const id = bindName(ps);
          next(ps);
          const e = expr(ps);
          elems.push({ kind: "Alias", ident: id, expr: e, pos: id.pos, end: e.end });
        } else elems.push(expr(ps));
      }
      if (ty(ps) === ",") next(ps);
      else if (ty(ps) !== "]") {
        addError(ps, ps.tok.start, `missing ',' in list literal, found ${describe(ps, ps.tok)}`);
        sync(ps, "]");
      }
      if (ps.tok.start === before && ty(ps) !== "]") next(ps);
    }
    const e = ps.tok.end;
    if (ty(ps) !== "]") addError(ps, ps.tok.start, `expected ']', found ${describe(ps, ps.tok)}`);
    else next(ps);
    return { kind: "List", elems, ellipsis: ell, pos: pos(ps, s), end: e };
  } finally {
    leave(ps);
  }
}

export function stringLit(ps: ParserState, t: Token): ast.StringLit | ast.BytesLit | ast.Interpolation {
  const info = t.str ?? { bytes: false, multiline: false, parts: [] };
  const p = pos(ps, t.start);
  const parts0 = info.parts;
  if (parts0.length <= 1 && (parts0.length === 0 || typeof parts0[0] === "string")) {
    const v = (parts0[0] as string | undefined) ?? "";
    if (info.bytes)
      return { kind: "Bytes", value: binaryToBytes(v), multiline: info.multiline, pos: p, end: t.end };
    return { kind: "String", value: v, multiline: info.multiline, pos: p, end: t.end };
  }
  const parts: (string | ast.Expr)[] = info.parts.map((x) =>
    typeof x === "string" ? x : interpolated(ps, x),
  );
  return { kind: "Interpolation", bytes: info.bytes, multiline: info.multiline, parts, pos: p, end: t.end };
}

export function interpolated(ps: ParserState, r: ExprRange): ast.Expr {
  enter(ps);
  try {
    return wholeExpr(createState(ps.ctx, r.start, r.end));
  } finally {
    leave(ps);
  }
}

/** An expression that must span the whole range. */
export function wholeExpr(ps: ParserState): ast.Expr {
  if (ty(ps) === "EOF") {
    addError(ps, ps.tok.start, "expected expression, found 'EOF'");
    return { kind: "BadExpr", pos: pos(ps, ps.tok.start), end: ps.tok.start };
  }
  const e = expr(ps);
  if (ty(ps) === "," && ps.tok.implicit) next(ps);
  if (ty(ps) !== "EOF") addError(ps, ps.tok.start, `unexpected ${describe(ps, ps.tok)} after expression`);
  return e;
}
