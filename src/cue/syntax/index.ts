/**
 * CUE syntax: the lexer, the parser and the AST of CUE v0.17 source files. `parseFile` turns one
 * file's text into an `ast.File` plus syntax errors (it never throws); `parseExpression` parses a
 * single expression (used for `@test(eq, …)` bodies). The tree implements the interfaces of
 * `ast.ts` with compact classes (`node-base.ts`): a node is its own position, answering line and
 * column from its source's line table on demand (`position.ts`).
 */

export type * from "./ast.js";
export { identKind } from "./ast.js";
export { IdentFieldNode, identLabel } from "./derived-nodes.js";
export {
  type ParseError,
  type ParseOptions,
  type ParseResult,
  parseExpression,
  parseFile,
} from "./parser.js";
export { splitPath } from "./path.js";
export { createSource, formatPos, noPos, type Pos, type Source } from "./position.js";
