/**
 * The names a program can reach fields by. Every reference in CUE starts with an identifier and
 * continues with selectors and indexes, and an alias stands for the field it is declared on, so a
 * field whose label (and whose ancestors' labels) appears nowhere in that set cannot be reached by
 * any reference: once exported, it can be released (see `export-walk.ts`) without anything holding
 * on to its evaluated subtree or seeing a different result.
 */

import type * as ast from "../syntax/ast.js";
import { identLabel } from "../syntax/index.js";

/** Labels that references may reach; `any` when some reference reaches fields it cannot name. */
export interface ReachableNames {
  readonly names: ReadonlySet<string>;
  readonly any: boolean;
}

interface Acc {
  readonly names: Set<string>;
  any: boolean;
}

/** The names used by the references of `files`. */
export function reachableNames(files: readonly ast.File[]): ReachableNames {
  const acc: Acc = { names: new Set(), any: false };
  for (const f of files) {
    for (const imp of f.imports) if (imp.name !== undefined) acc.names.add(imp.name.name);
    decls(f.decls, acc);
  }
  return acc;
}

/** Both programs' names (the unification of two values). */
export function unionNames(a: ReachableNames, b: ReachableNames): ReachableNames {
  const names = new Set(a.names);
  for (const n of b.names) names.add(n);
  return { names, any: a.any || b.any };
}

function labelName(l: ast.Label): string | undefined {
  if (l.kind === "Ident") return l.name;
  if (l.kind === "String") return l.value;
  return undefined;
}

function decls(ds: readonly ast.Decl[], acc: Acc): void {
  for (const d of ds) {
    switch (d.kind) {
      case "Field": {
        // A `name: value` field's name without making a label node.
        const ident = identLabel(d);
        if (ident !== undefined && d.alias === undefined && d.value.kind !== "Alias") {
          expr(d.value, acc);
          break;
        }
        const name = labelName(d.label);
        // A pattern's field alias (`X=[string]: v`) is only visible inside `v`, which is the
        // field's own subtree; other field aliases are visible to the whole struct.
        if (d.alias !== undefined && d.label.kind !== "PatternLabel") {
          if (name === undefined) acc.any = true;
          else acc.names.add(name);
        }
        if (d.value.kind === "Alias") {
          if (name === undefined) acc.any = true;
          else acc.names.add(name);
        }
        if (d.label.kind === "DynamicLabel" || d.label.kind === "PatternLabel") expr(d.label.expr, acc);
        else if (d.label.kind === "Interpolation") parts(d.label.parts, acc);
        expr(d.value, acc);
        break;
      }
      case "Let":
        expr(d.expr, acc);
        break;
      case "Embed":
        // An embedded alias (`{X=expr}`) stands for a struct that has no label of its own.
        if (d.expr.kind === "Alias") acc.any = true;
        expr(d.expr, acc);
        break;
      case "Ellipsis":
        if (d.type !== undefined) expr(d.type, acc);
        break;
      case "Comprehension":
        comprehension(d, acc);
        break;
      case "Attribute":
      case "BadDecl":
        break;
      default: {
        const never: never = d;
        throw new Error(`unexpected declaration ${String(never)}`);
      }
    }
  }
}

function comprehension(c: ast.Comprehension, acc: Acc): void {
  for (const cl of c.clauses) {
    switch (cl.kind) {
      case "For":
        expr(cl.source, acc);
        break;
      case "If":
        expr(cl.condition, acc);
        break;
      case "Let":
        expr(cl.expr, acc);
        break;
      case "Try":
        if (cl.expr !== undefined) expr(cl.expr, acc);
        break;
      default: {
        const never: never = cl;
        throw new Error(`unexpected clause ${String(never)}`);
      }
    }
  }
  expr(c.value, acc);
  if (c.fallback !== undefined) expr(c.fallback, acc);
}

function parts(ps: readonly (string | ast.Expr)[], acc: Acc): void {
  for (const p of ps) if (typeof p !== "string") expr(p, acc);
}

function expr(e: ast.Expr, acc: Acc): void {
  switch (e.kind) {
    case "Ident":
      // `self` (aliasv2) stands for the enclosing struct without naming it.
      if (e.name === "self") acc.any = true;
      acc.names.add(e.name);
      return;
    case "Int":
    case "Float":
    case "String":
    case "Bytes":
    case "Bool":
    case "Null":
    case "Bottom":
    case "BadExpr":
      return;
    case "Interpolation":
      parts(e.parts, acc);
      return;
    case "Struct":
      decls(e.decls, acc);
      return;
    case "List":
      for (const x of e.elems) {
        if (x.kind === "Comprehension") comprehension(x, acc);
        else {
          if (x.kind === "Alias") acc.any = true;
          expr(x, acc);
        }
      }
      if (e.ellipsis?.type !== undefined) expr(e.ellipsis.type, acc);
      return;
    case "Paren":
    case "Unary":
      expr(e.expr, acc);
      return;
    case "Binary":
      expr(e.left, acc);
      expr(e.right, acc);
      return;
    case "Selector":
      acc.names.add(e.sel.kind === "Ident" ? e.sel.name : e.sel.value);
      expr(e.expr, acc);
      return;
    case "Index":
      if (e.index.kind === "String") acc.names.add(e.index.value);
      expr(e.expr, acc);
      expr(e.index, acc);
      return;
    case "Slice":
      expr(e.expr, acc);
      if (e.low !== undefined) expr(e.low, acc);
      if (e.high !== undefined) expr(e.high, acc);
      return;
    case "Call":
      expr(e.fn, acc);
      for (const a of e.args) expr(a, acc);
      return;
    case "Alias":
    case "Postfix":
      expr(e.expr, acc);
      return;
    default: {
      const never: never = e;
      throw new Error(`unexpected expression ${String(never)}`);
    }
  }
}
