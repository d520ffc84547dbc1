/**
 * The file level: leading attributes, the package clause, import declarations, then declarations.
 */

import type * as ast from "./ast.js";
import { IdentNode } from "./literal-nodes.js";
import { CommentNode, FileNode, ImportNode } from "./nodes.js";
import { attribute, declList, endOfDecl } from "./parse-decls.js";
import {
  addError,
  describe,
  empty,
  expect,
  isIdent,
  mark,
  next,
  type ParserState,
  peek,
  push,
  skipComma,
  take,
  ty,
} from "./parser-state.js";

export function sourceFile(ps: ParserState): ast.File {
  // Leading attributes belong to the package clause if one follows, else they are declarations:
  // they stay on the list stack and become the first declarations.
  const dm = mark(ps);
  while (ty(ps) === "ATTR") {
    push(ps, attribute(ps));
    skipComma(ps);
  }
  let packageName: ast.Ident | undefined;
  let fileAttributes: readonly ast.Attribute[] = empty;
  if (isIdent(ps, "package") && peek(ps) === "IDENT") {
    next(ps);
    packageName = new IdentNode(ps.source, ps.sc.start, ps.sc.value);
    next(ps);
    fileAttributes = take<ast.Attribute>(ps, dm);
    endOfDecl(ps, "EOF", "package clause");
  }
  const im = mark(ps);
  while (isIdent(ps, "import") && (peek(ps) === "(" || peek(ps) === "STRING" || peek(ps) === "IDENT")) {
    next(ps);
    if (ty(ps) === "(") {
      next(ps);
      while (ty(ps) !== ")" && ty(ps) !== "EOF") {
        const before = ps.sc.start;
        push(ps, importSpec(ps));
        if (ty(ps) === ",") next(ps);
        else if (ty(ps) !== ")") {
          addError(ps, ps.sc.start, `expected ')' or newline in import list, found ${describe(ps)}`);
          if (ps.sc.start === before) next(ps);
        }
      }
      expect(ps, ")", "')'");
    } else {
      push(ps, importSpec(ps));
    }
    endOfDecl(ps, "EOF", "import declaration");
  }
  const imports = take<ast.ImportSpec>(ps, im);
  // The leading attributes (if not the package's) are still on the stack, below the declarations.
  declList(ps, "EOF");
  const decls = take<ast.Decl>(ps, dm);
  const comments =
    ps.sc.comments === undefined || ps.sc.comments.length === 0
      ? empty
      : ps.sc.comments.map((c) => new CommentNode(ps.source, c.start, c.end, c.text));
  return new FileNode(ps.source, ps.start, ps.end, packageName, fileAttributes, imports, decls, comments);
}

export function importSpec(ps: ParserState): ast.ImportSpec {
  const s = ps.sc.start;
  let name: ast.Ident | undefined;
  if (ty(ps) === "IDENT") {
    name = new IdentNode(ps.source, ps.sc.start, ps.sc.value);
    next(ps);
  }
  const str = ps.sc.str;
  if (ty(ps) !== "STRING") {
    addError(ps, ps.sc.start, `expected import path, found ${describe(ps)}`);
    if (ty(ps) !== "EOF" && ty(ps) !== ")") next(ps);
    return new ImportNode(ps.source, s, ps.sc.start, name, "");
  }
  let path = "";
  if (str === undefined) path = ps.sc.value;
  else {
    const parts = str.parts;
    if (parts.length === 1 && typeof parts[0] === "string" && !str.bytes && !str.multiline) path = parts[0];
    else if (parts.length !== 0) addError(ps, ps.sc.start, "invalid import path");
  }
  const e = ps.sc.end;
  next(ps);
  return new ImportNode(ps.source, s, e, name, path);
}
