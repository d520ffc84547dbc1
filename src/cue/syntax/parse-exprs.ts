/**
 * Expressions: binary operators by CUE precedence, unary operators and bounds, selectors, indexes,
 * slices and calls, operands (literals, structs, lists, parentheses) and string interpolation.
 */

import type * as ast from "./ast.js";
import {
  AliasNode,
  BinaryNode,
  CallNode,
  IndexNode,
  OptionalRefNode,
  PostfixNode,
  SelectorNode,
  SliceNode,
} from "./derived-nodes.js";
import type { StringInfo, TokenType } from "./lexer.js";
import {
  BadExprNode,
  BoolNode,
  BottomNode,
  BytesNode,
  FloatNode,
  IdentNode,
  InterpolationNode,
  IntNode,
  NullNode,
  PlainIntNode,
  PlainStringNode,
  StringNode,
} from "./literal-nodes.js";
import { ListNode, ParenNode, UnaryNode } from "./nodes.js";
import { decodeNumber } from "./number-lit.js";
import { clauseKeyword, comprehension, ellipsis, struct } from "./parse-decls.js";
import {
  addError,
  assertNever,
  atAlias,
  bindName,
  createState,
  describe,
  enter,
  expect,
  ident,
  leave,
  mark,
  next,
  type ParserState,
  peek,
  push,
  sync,
  take,
  tokText,
  ty,
} from "./parser-state.js";
import { binaryToBytes, type ExprRange } from "./string-lit.js";
import { unaryFlag } from "./tokens.js";

function isUnaryOp(t: TokenType): boolean {
  switch (t) {
    case "!":
    case "-":
    case "+":
    case "*":
    case "<":
    case "<=":
    case ">":
    case ">=":
    case "!=":
    case "==":
    case "=~":
    case "!~":
      return true;
    default:
      return false;
  }
}

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
    isUnaryOp(t)
  );
}

export function expr(ps: ParserState): ast.Expr {
  enter(ps);
  const x = binary(ps, 1);
  leave(ps);
  return x;
}

export function binary(ps: ParserState, minPrec: number): ast.Expr {
  let x = unary(ps);
  for (;;) {
    // The scanner classified operators when it read them (precedence in the low bits).
    const p = ps.sc.op & 7;
    if (p === 0 || p < minPrec) return x;
    const op = ty(ps);
    const opOffset = ps.sc.start;
    next(ps);
    enter(ps);
    const y = binary(ps, p + 1);
    leave(ps);
    x = new BinaryNode(op as ast.BinaryOp, x, y, opOffset);
  }
}

export function unary(ps: ParserState): ast.Expr {
  if ((ps.sc.op & unaryFlag) !== 0) {
    const op = ty(ps);
    const s = ps.sc.start;
    next(ps);
    enter(ps);
    const x = unary(ps);
    leave(ps);
    return new UnaryNode(ps.source, s, op as ast.UnaryOp, x);
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
          x = new SelectorNode(x, ident(ps));
          next(ps);
        } else if (ty(ps) === "STRING") {
          const s = stringLit(ps, ps.sc.start, ps.sc.end, ps.sc.str, ps.sc.value);
          if (s.kind !== "String" || s.multiline)
            addError(ps, ps.sc.start, "selector must be an identifier or simple string");
          const sel: ast.StringLit =
            s.kind === "String" ? s : new StringNode(ps.source, ps.sc.start, s.end, "");
          x = new SelectorNode(x, sel);
          next(ps);
        } else {
          addError(ps, ps.sc.start, `expected selector, found ${describe(ps)}`);
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
          const e = ps.sc.end;
          expect(ps, "]", "']'");
          x = new SliceNode(x, low, high, e);
        } else {
          if (ty(ps) === "," && !ps.sc.implicit) next(ps);
          const e = ps.sc.end;
          expect(ps, "]", "']'");
          x = new IndexNode(x, low ?? new BadExprNode(ps.source, e, e), e);
        }
        break;
      }
      case "(": {
        next(ps);
        const m = mark(ps);
        while (ty(ps) !== ")" && ty(ps) !== "EOF") {
          const before = ps.sc.start;
          push(ps, expr(ps));
          if (ty(ps) === ",") next(ps);
          else if (ty(ps) !== ")") {
            addError(ps, ps.sc.start, `missing ',' in argument list, found ${describe(ps)}`);
            sync(ps, ")");
          }
          if (ps.sc.start === before && ty(ps) !== ")") next(ps);
        }
        const args = take<ast.Expr>(ps, m);
        const e = ps.sc.end;
        expect(ps, ")", "')'");
        x = new CallNode(x, args, e);
        break;
      }
      case "...": {
        // Postfix `x...` (explicitopen); the evaluator rejects it in files without the experiment.
        const e = ps.sc.end;
        next(ps);
        x = new PostfixNode(x, e);
        break;
      }
      case "?": {
        // `a?` (the try experiment); `a?:` is an optional field's label, left to the caller.
        if (peek(ps) === ":") return x;
        const e = ps.sc.end;
        next(ps);
        x = new OptionalRefNode(x, e);
        break;
      }
      default:
        return x;
    }
  }
}

export function operand(ps: ParserState): ast.Expr {
  const sc = ps.sc;
  const s = sc.start;
  switch (sc.type) {
    case "IDENT": {
      const name = sc.value;
      const kw = sc.keyword;
      next(ps);
      if (kw !== "") {
        if (kw === "null") return new NullNode(ps.source, s, s + 4);
        if (kw === "true") return new BoolNode(ps.source, s, true);
        if (kw === "false") return new BoolNode(ps.source, s, false);
      }
      return new IdentNode(ps.source, s, name);
    }
    case "BOTTOM":
      next(ps);
      return new BottomNode(ps.source, s, s + 3);
    case "INT":
    case "FLOAT": {
      const e = sc.end;
      if (sc.intValue >= 0) {
        const v = sc.intValue;
        next(ps);
        return new PlainIntNode(ps.source, s, v);
      }
      const raw = tokText(ps);
      next(ps);
      const v = decodeNumber(raw);
      switch (v.kind) {
        case "int":
          return new IntNode(ps.source, s, e, v.value);
        case "float":
          return new FloatNode(ps.source, s, e, v.text, v.value);
        case "error":
          addError(ps, s, v.message);
          return new BadExprNode(ps.source, s, e);
        default:
          return assertNever(v);
      }
    }
    case "STRING": {
      const e = sc.end;
      const str = sc.str;
      const value = sc.value;
      next(ps);
      return stringLit(ps, s, e, str, value);
    }
    case "{":
      return struct(ps);
    case "[":
      return list(ps);
    case "(": {
      next(ps);
      let inner: ast.Expr;
      if (atAlias(ps)) {
        const id = bindName(ps);
        next(ps);
        inner = new AliasNode(id, expr(ps));
      } else {
        inner = expr(ps);
      }
      const e = ps.sc.end;
      expect(ps, ")", "')'");
      return new ParenNode(ps.source, s, e, inner);
    }
    default: {
      const t = sc.type;
      const e = sc.end;
      addError(ps, s, `expected operand, found ${describe(ps)}`);
      // Consume the offending token unless it closes something an outer rule is waiting for.
      if (t !== "EOF" && t !== "," && t !== "}" && t !== "]" && t !== ")") next(ps);
      return new BadExprNode(ps.source, s, e);
    }
  }
}

export function list(ps: ParserState): ast.ListLit {
  const s = ps.sc.start;
  enter(ps);
  next(ps); // [
  const m = mark(ps);
  let ell: ast.Ellipsis | undefined;
  while (ty(ps) !== "]" && ty(ps) !== "EOF") {
    if (ty(ps) === "," && ps.sc.implicit) {
      next(ps);
      continue;
    }
    const before = ps.sc.start;
    if (ty(ps) === "...") {
      if (ell !== undefined) addError(ps, ps.sc.start, "multiple ellipses in list");
      ell = ellipsis(ps);
    } else {
      if (ell !== undefined) addError(ps, ps.sc.start, "ellipsis must be the last element of a list");
      const kw = clauseKeyword(ps);
      if (kw === "for" || kw === "if" || kw === "try") push(ps, comprehension(ps));
      else if (atAlias(ps)) {
        const id = bindName(ps);
        next(ps);
        push(ps, new AliasNode(id, expr(ps)));
      } else push(ps, expr(ps));
    }
    if (ty(ps) === ",") next(ps);
    else if (ty(ps) !== "]") {
      addError(ps, ps.sc.start, `missing ',' in list literal, found ${describe(ps)}`);
      sync(ps, "]");
    }
    if (ps.sc.start === before && ty(ps) !== "]") next(ps);
  }
  const elems = take<ast.Expr | ast.Comprehension>(ps, m);
  const e = ps.sc.end;
  if (ty(ps) !== "]") addError(ps, ps.sc.start, `expected ']', found ${describe(ps)}`);
  else next(ps);
  leave(ps);
  return new ListNode(ps.source, s, e, elems, ell);
}

/**
 * The literal of a `STRING` token at `[s, e)`: `info` as scanned, or, for a plain `"…"` without
 * escapes, undefined and the decoded `value`.
 */
export function stringLit(
  ps: ParserState,
  s: number,
  e: number,
  info: StringInfo | undefined,
  value: string,
): ast.StringLit | ast.BytesLit | ast.Interpolation {
  if (info === undefined) return new PlainStringNode(ps.source, s, value);
  const parts0 = info.parts;
  if (parts0.length <= 1 && (parts0.length === 0 || typeof parts0[0] === "string")) {
    const v = (parts0[0] as string | undefined) ?? "";
    if (info.bytes) return new BytesNode(ps.source, s, e, binaryToBytes(v));
    return new StringNode(ps.source, s, e, v);
  }
  const parts: (string | ast.Expr)[] = parts0.map((x) => (typeof x === "string" ? x : interpolated(ps, x)));
  return new InterpolationNode(ps.source, s, e, info.bytes, parts);
}

export function interpolated(ps: ParserState, r: ExprRange): ast.Expr {
  enter(ps);
  const x = wholeExpr(createState(ps.ctx, r.start, r.end));
  leave(ps);
  return x;
}

/** An expression that must span the whole range. */
export function wholeExpr(ps: ParserState): ast.Expr {
  if (ty(ps) === "EOF") {
    addError(ps, ps.sc.start, "expected expression, found 'EOF'");
    return new BadExprNode(ps.source, ps.sc.start, ps.sc.start);
  }
  const e = expr(ps);
  if (ty(ps) === "," && ps.sc.implicit) next(ps);
  if (ty(ps) !== "EOF") addError(ps, ps.sc.start, `unexpected ${describe(ps)} after expression`);
  return e;
}
