/**
 * Plain data: files made only of literals, lists and struct literals with regular fields — no
 * references, operators, definitions, patterns, constraints, embeddings or comprehensions, and no
 * field declared twice in one struct. Every field of such a document has exactly one conjunct, a
 * literal, so its evaluation cannot fail: its `errors` are known to be empty without evaluating it.
 * A generated configuration is typically plain data, and the config loader asks for the user
 * document's errors before unifying it with the schema, which would otherwise evaluate the whole
 * document once more for nothing.
 */

import type * as ast from "../syntax/ast.js";
import { identLabel } from "../syntax/index.js";

/** Steps a full evaluation takes per field, roughly (to stay within the step limit's verdict). */
const STEPS_PER_FIELD = 4;

/**
 * Whether `files` are plain data whose evaluation is certain to give no errors under the limits:
 * structure no deeper than `maxDepth` and far enough from `maxSteps`.
 */
export function isErrorFreePlainData(
  files: readonly ast.File[],
  maxDepth: number,
  maxSteps: number,
): boolean {
  const top = new Set<string>();
  const budget = { fields: 0, max: Math.floor(maxSteps / (2 * STEPS_PER_FIELD)) };
  for (const f of files) {
    if (f.imports.length > 0) return false;
    for (const d of f.decls) {
      if (d.kind === "Attribute") continue;
      if (d.kind !== "Field") return false;
      const name = plainLabel(d);
      if (name === undefined || top.has(name)) return false;
      top.add(name);
      if (!plainValue(d.value, 1, maxDepth, budget)) return false;
    }
  }
  return true;
}

/** A regular field's label, or undefined when the field is not plain. */
function plainLabel(d: ast.Field): string | undefined {
  if (
    d.constraint !== "regular" ||
    d.alias !== undefined ||
    d.keyAlias !== undefined ||
    d.value.kind === "Alias"
  )
    return undefined;
  // The name without making a label node (`name: value` fields make one per read).
  const name = identLabel(d);
  if (name !== undefined) {
    const c = name.charCodeAt(0);
    // Definitions are not data; `_`, `__`-names, hidden definitions and `$`-names are left to the
    // evaluator too. A hidden field (`_lookout: listen: "..."`, which the config loader adds to
    // every document) holds plain data as well as a regular one.
    if (c === 0x5f) return hiddenIdent(name) ? name : undefined;
    return c === 0x23 || c === 0x24 ? undefined : name;
  }
  const l = d.label;
  if (l.kind !== "String") return undefined;
  return l.value.startsWith("#") || l.value.startsWith("_") ? undefined : l.value;
}

/** `_name`: a hidden field's identifier (not `_`, `__x` or the hidden definition `_#x`). */
function hiddenIdent(name: string): boolean {
  const c = name.charCodeAt(1);
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
}

function plainValue(
  e: ast.Expr,
  depth: number,
  maxDepth: number,
  budget: { fields: number; readonly max: number },
): boolean {
  if (++budget.fields > budget.max || depth >= maxDepth) return false;
  switch (e.kind) {
    case "Int":
    case "Float":
    case "String":
    case "Bytes":
    case "Bool":
    case "Null":
      return true;
    case "List":
      if (e.ellipsis !== undefined) return false;
      for (const x of e.elems) {
        if (x.kind === "Comprehension" || !plainValue(x, depth + 1, maxDepth, budget)) return false;
      }
      return true;
    case "Struct": {
      if (e.decls.length > 8) {
        const seen = new Set<string>();
        for (const d of e.decls) {
          if (d.kind === "Attribute") continue;
          if (d.kind !== "Field") return false;
          const name = plainLabel(d);
          if (name === undefined || seen.has(name)) return false;
          seen.add(name);
          if (!plainValue(d.value, depth + 1, maxDepth, budget)) return false;
        }
        return true;
      }
      for (let i = 0; i < e.decls.length; i++) {
        const d = e.decls[i] as ast.Decl;
        if (d.kind === "Attribute") continue;
        if (d.kind !== "Field") return false;
        const name = plainLabel(d);
        if (name === undefined) return false;
        for (let j = 0; j < i; j++) {
          const o = e.decls[j] as ast.Decl;
          if (o.kind === "Field" && plainLabel(o) === name) return false;
        }
        if (!plainValue(d.value, depth + 1, maxDepth, budget)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}
