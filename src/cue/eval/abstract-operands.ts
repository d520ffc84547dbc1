/**
 * cue's compiler refuses an operand that can never be concrete (`assertConcreteIsPossible` in
 * `internal/core/compile`): a bound (`<=2 * [int]`), a predeclared type or range (`int + 1`,
 * `string == number`, `uint * 2`) or `_`, as an operand of any binary operator but `&` and `|`.
 * The error is "invalid operand <=2 ('*' requires concrete value)" at the operand, with the path
 * of the declaration it is in (`compilePathAt`'s rules), and the document is not evaluated.
 *
 * A name is taken as predeclared only when no file of the package declares it anywhere (as a
 * field, alias, let or comprehension variable): a document that shadows `int` is left to
 * evaluation rather than risk refusing a valid one.
 */

import type * as ast from "../syntax/ast.js";
import { clauseExpr, clauseScope, compileLabel } from "./compile-path.js";
import type { CueError } from "./errors.js";
import { exprText } from "./print-expr.js";

/** Predeclared names that compile to a type or a constraint (never concrete), and `_`. */
const abstractNames = new Set([
  "_",
  "string",
  "bytes",
  "bool",
  "int",
  "float",
  "number",
  "uint",
  "rune",
  "int8",
  "int16",
  "int32",
  "int64",
  "int128",
  "uint8",
  "uint16",
  "uint32",
  "uint64",
  "uint128",
  "float32",
  "float64",
]);

const boundOps = new Set<ast.UnaryOp>(["<", "<=", ">", ">=", "!=", "=~", "!~"]);

/** The operands of `files[i]` that can never be concrete, one error each. */
export function abstractOperands(file: ast.File, declared: () => ReadonlySet<string>): CueError[] {
  const out: CueError[] = [];
  const w = { declared, out };
  decls(w, file.decls, []);
  return out;
}

/** Every name any of `files` declares, at any depth (what could shadow a predeclared name). */
export function declaredNames(files: readonly ast.File[]): Set<string> {
  const names = new Set<string>();
  const visit = (n: unknown): void => {
    if (n === null || typeof n !== "object") return;
    if (Array.isArray(n)) {
      for (const x of n) visit(x);
      return;
    }
    const node = n as { kind?: string } & Record<string, unknown>;
    const add = (x: unknown): void => {
      const id = x as ast.Ident | undefined;
      if (id !== undefined && id !== null && id.kind === "Ident") names.add(id.name);
    };
    switch (node.kind) {
      case "Field": {
        const f = node as unknown as ast.Field;
        if (f.label.kind === "Ident") names.add(f.label.name);
        add(f.alias);
        add(f.keyAlias);
        break;
      }
      case "DynamicLabel":
      case "PatternLabel":
      case "Alias":
        add(node.alias ?? node.ident);
        break;
      case "Let":
        add(node.ident);
        break;
      case "For":
        add(node.key);
        add(node.value);
        break;
      case "Try":
        add(node.ident);
        break;
      default:
        break;
    }
    for (const k in node) {
      if (k === "pos" || k === "source") continue;
      const v = node[k];
      if (v !== null && typeof v === "object") visit(v);
    }
  };
  for (const f of files) {
    for (const d of f.decls) visit(d);
    for (const i of f.imports) names.add(i.name?.name ?? i.path.split(":")[0]?.split("/").pop() ?? i.path);
  }
  return names;
}

interface Walk {
  /** Asked only when a predeclared name is an operand (it walks every file). */
  readonly declared: () => ReadonlySet<string>;
  readonly out: CueError[];
}

function decls(w: Walk, ds: readonly ast.Decl[], path: string[]): void {
  for (const d of ds) {
    switch (d.kind) {
      case "Field": {
        // One path stack for the whole walk: an error copies it.
        path.push(compileLabel(d.label));
        expr(w, d.value, path);
        path.pop();
        const l = d.label;
        if (l.kind === "DynamicLabel" || l.kind === "PatternLabel") expr(w, l.expr, path);
        else if (l.kind === "Interpolation") expr(w, l, path);
        break;
      }
      case "Let":
        path.push("let[]");
        expr(w, d.expr, path);
        path.pop();
        break;
      case "Embed":
        expr(w, d.expr, path);
        break;
      case "Ellipsis":
        if (d.type !== undefined) expr(w, d.type, path);
        break;
      case "Comprehension":
        comprehension(w, d, path);
        break;
      default:
        break;
    }
  }
}

function comprehension(w: Walk, c: ast.Comprehension, at: string[]): void {
  const path = [...at];
  for (const cl of c.clauses) {
    const x = clauseExpr(cl);
    if (x !== undefined) expr(w, x, path);
    const scope = clauseScope(cl);
    if (scope !== undefined) path.push(scope);
  }
  expr(w, c.value, path);
  if (c.fallback !== undefined) expr(w, c.fallback, at);
}

function expr(w: Walk, e: ast.Expr, path: string[]): void {
  switch (e.kind) {
    case "Struct":
      decls(w, e.decls, path);
      return;
    case "List":
      for (const x of e.elems) {
        if (x.kind === "Comprehension") comprehension(w, x, path);
        else expr(w, x, path);
      }
      if (e.ellipsis?.type !== undefined) expr(w, e.ellipsis.type, path);
      return;
    case "Paren":
    case "Alias":
    case "Unary":
    case "Postfix":
    case "Selector":
      expr(w, e.expr, path);
      return;
    case "Binary":
      if (e.op !== "&" && e.op !== "|") {
        operand(w, e.left, e.op, path);
        operand(w, e.right, e.op, path);
      }
      expr(w, e.left, path);
      expr(w, e.right, path);
      return;
    case "Index":
      expr(w, e.expr, path);
      expr(w, e.index, path);
      return;
    case "Slice":
      for (const x of [e.expr, e.low, e.high]) if (x !== undefined) expr(w, x, path);
      return;
    case "Call":
      for (const x of [e.fn, ...e.args]) expr(w, x, path);
      return;
    case "Interpolation":
      for (const x of e.parts) if (typeof x !== "string") expr(w, x, path);
      return;
    default:
      return;
  }
}

function operand(w: Walk, src: ast.Expr, op: ast.BinaryOp, path: string[]): void {
  let x = src;
  while (x.kind === "Paren") x = x.expr;
  const never =
    (x.kind === "Unary" && boundOps.has(x.op)) ||
    (x.kind === "Ident" && abstractNames.has(x.name) && !w.declared().has(x.name));
  if (!never) return;
  w.out.push({
    path: [...path],
    code: "eval",
    message: `invalid operand ${exprText(src)} ('${op}' requires concrete value)`,
    positions: [{ file: src.pos.file, line: src.pos.line, column: src.pos.column }],
  });
}
