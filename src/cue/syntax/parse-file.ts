/**
 * The file level: leading attributes, the package clause, import declarations, then declarations.
 */

import type * as ast from "./ast.js";
import { attribute, declList, endOfDecl } from "./parse-decls.js";
import {
  addError,
  describe,
  expect,
  ident,
  isIdent,
  next,
  type ParserState,
  peek,
  pos,
  skipComma,
  ty,
} from "./parser-state.js";

export function sourceFile(ps: ParserState): ast.File {
  const leadingAttrs: ast.Attribute[] = [];
  while (ty(ps) === "ATTR") {
    leadingAttrs.push(attribute(ps));
    skipComma(ps);
  }
  let packageName: ast.Ident | undefined;
  let fileAttributes: ast.Attribute[] = [];
  const decls: ast.Decl[] = [];
  if (isIdent(ps, "package") && peek(ps).type === "IDENT") {
    next(ps);
    packageName = ident(ps, ps.tok);
    next(ps);
    fileAttributes = leadingAttrs;
    endOfDecl(ps, "EOF", "package clause");
  } else {
    decls.push(...leadingAttrs);
  }
  const imports: ast.ImportSpec[] = [];
  while (
    isIdent(ps, "import") &&
    (peek(ps).type === "(" || peek(ps).type === "STRING" || peek(ps).type === "IDENT")
  ) {
    next(ps);
    if (ty(ps) === "(") {
      next(ps);
      while (ty(ps) !== ")" && ty(ps) !== "EOF") {
        const before = ps.tok.start;
        imports.push(importSpec(ps));
        if (ty(ps) === ",") next(ps);
        else if (ty(ps) !== ")") {
          addError(ps, ps.tok.start, `expected ')' or newline in import list, found ${describe(ps, ps.tok)}`);
          if (ps.tok.start === before) next(ps);
        }
      }
      expect(ps, ")", "')'");
    } else {
      imports.push(importSpec(ps));
    }
    endOfDecl(ps, "EOF", "import declaration");
  }
  decls.push(...declList(ps, "EOF"));
  return {
    kind: "File",
    filename: ps.source.name,
    packageName,
    fileAttributes,
    imports,
    decls,
    comments: ps.lexer.comments.map((c) => ({
      kind: "Comment",
      text: c.text,
      pos: pos(ps, c.start),
      end: c.end,
    })),
    pos: pos(ps, ps.start),
    end: ps.end,
  };
}

export function importSpec(ps: ParserState): ast.ImportSpec {
  const s = ps.tok.start;
  let name: ast.Ident | undefined;
  if (ty(ps) === "IDENT") {
    name = ident(ps, ps.tok);
    next(ps);
  }
  if (ty(ps) !== "STRING" || ps.tok.str === undefined) {
    addError(ps, ps.tok.start, `expected import path, found ${describe(ps, ps.tok)}`);
    if (ty(ps) !== "EOF" && ty(ps) !== ")") next(ps);
    return { kind: "Import", name, path: "", pos: pos(ps, s), end: ps.tok.start };
  }
  const parts = ps.tok.str.parts;
  let path = "";
  if (parts.length === 1 && typeof parts[0] === "string" && !ps.tok.str.bytes && !ps.tok.str.multiline)
    path = parts[0];
  else if (parts.length !== 0) addError(ps, ps.tok.start, "invalid import path");
  const e = ps.tok.end;
  next(ps);
  return { kind: "Import", name, path, pos: pos(ps, s), end: e };
}
