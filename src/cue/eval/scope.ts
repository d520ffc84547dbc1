/**
 * Lexical scoping: which names a struct literal declares, and what an identifier refers to from a
 * given frame (a field vertex, a let, a comprehension variable, an import, or a predeclared name).
 */

import type * as ast from "../syntax/ast.js";
import { identLabel } from "../syntax/index.js";
import { resolveDefaultValue } from "./defaults.js";
import { selfVertex } from "./experiments.js";
import { evalExpr } from "./expr.js";
import { bottom, formatValue } from "./values.js";
import { type Binding, type Frame, type Scope, type ScopeEntry, strLabel, Vertex } from "./vertex.js";

const scopes = new WeakMap<object, Scope>();

function addDecls(m: Map<string, ScopeEntry>, decls: readonly ast.Decl[]): void {
  for (const d of decls) {
    if (d.kind === "Field") {
      if (d.label.kind === "Ident") {
        m.set(d.label.name, { t: "field", label: d.label.name });
        if (d.alias !== undefined) m.set(d.alias.name, { t: "field", label: d.label.name });
        if (d.keyAlias !== undefined) m.set(d.keyAlias.name, { t: "label", value: d.label.name });
      } else if (d.label.kind === "String") {
        if (d.alias !== undefined) m.set(d.alias.name, { t: "field", label: strLabel(d.label.value) });
        if (d.keyAlias !== undefined) m.set(d.keyAlias.name, { t: "label", value: d.label.value });
      } else if (d.alias !== undefined && d.label.kind !== "PatternLabel") {
        m.set(d.alias.name, { t: "dynamic", field: d });
      }
    } else if (d.kind === "Let") {
      m.set(d.ident.name, { t: "let", decl: d });
    }
  }
}

/** The names declared by a struct literal (cached per node). */
export function scopeOf(lit: ast.StructLit): Scope {
  let s = scopes.get(lit);
  if (s === undefined) {
    const m = new Map<string, ScopeEntry>();
    addDecls(m, lit.decls);
    s = m;
    scopes.set(lit, s);
  }
  return s;
}

/** The package scope: fields of every file; lets and aliases of `file` (they are file-scoped). */
export function fileScope(files: readonly ast.File[], file: ast.File): Scope {
  const m = new Map<string, ScopeEntry>();
  for (const f of files) {
    for (const d of f.decls) {
      if (d.kind === "Field" && d.label.kind === "Ident")
        m.set(d.label.name, { t: "field", label: d.label.name });
    }
  }
  addDecls(m, file.decls);
  return m;
}

export function newFrame(up: Frame | undefined, vertex: Vertex, lit: ast.StructLit | undefined): Frame {
  return { up, vertex, scope: undefined, lit, binds: undefined, lets: undefined, imports: undefined };
}

/** What `name` denotes in a struct literal: small literals are scanned, large ones indexed. */
export function lookupDecl(
  lit: ast.StructLit,
  name: string,
): ScopeEntry | ast.LetClause | string | undefined {
  const decls = lit.decls;
  if (decls.length > 16) return scopeOf(lit).get(name);
  for (let i = 0; i < decls.length; i++) {
    const d = decls[i] as ast.Decl;
    if (d.kind === "Field") {
      // The name without making a label node (`name: value` fields make one per read).
      const n = identLabel(d);
      if (n === name) return name;
      if (d.alias === undefined && d.keyAlias === undefined) continue;
      const l = d.label;
      if (d.alias !== undefined && d.alias.name === name) {
        if (l.kind === "Ident") return l.name;
        if (l.kind === "String") return strLabel(l.value);
        if (l.kind !== "PatternLabel") return { t: "dynamic", field: d };
      }
      if (d.keyAlias !== undefined && d.keyAlias.name === name) {
        if (l.kind === "Ident") return { t: "label", value: l.name };
        if (l.kind === "String") return { t: "label", value: l.value };
      }
    } else if (d.kind === "Let" && d.ident.name === name) return d;
  }
  return undefined;
}

export function bindFrame(up: Frame, binds: Map<string, Binding>): Frame {
  return {
    up,
    vertex: up.vertex,
    scope: undefined,
    lit: undefined,
    binds,
    lets: undefined,
    imports: undefined,
  };
}

/** What an identifier resolved to. */
export type Resolved =
  | { readonly t: "vertex"; readonly v: Vertex }
  | { readonly t: "value"; readonly v: import("./values.js").Value }
  | { readonly t: "import"; readonly path: string }
  | undefined;

/** Resolves a name lexically from `env`; undefined when no enclosing scope declares it. */
export function resolveName(name: string, env: Frame): Resolved {
  for (let f: Frame | undefined = env; f !== undefined; f = f.up) {
    const b = f.binds?.get(name);
    if (b !== undefined) return b;
    if (f.lit !== undefined) {
      const d = lookupDecl(f.lit, name);
      if (d !== undefined) {
        if (typeof d === "string") return { t: "vertex", v: f.vertex.arc(d) };
        if ("kind" in d) return { t: "vertex", v: letVertex(f, d) };
        return entryValue(f, d);
      }
    }
    const e = f.scope?.get(name);
    if (e !== undefined) return entryValue(f, e);
    const imp = f.imports?.get(name);
    if (imp !== undefined) return { t: "import", path: imp };
  }
  return undefined;
}

function entryValue(f: Frame, e: ScopeEntry): Resolved {
  switch (e.t) {
    case "field":
      return { t: "vertex", v: f.vertex.arc(e.label) };
    case "let":
      return { t: "vertex", v: letVertex(f, e.decl) };
    case "label":
      return { t: "value", v: { t: "string", v: e.value } };
    case "dynamic":
      return dynamicField(f, e.field);
    default: {
      const never: never = e;
      return never;
    }
  }
}

const resolvingLabels = new Set<ast.Field>();

/** The field a computed label names (`(expr)~X: v`, `X=(expr): v`), once its label is known. */
function dynamicField(f: Frame, d: ast.Field): Resolved {
  const l = d.label;
  const expr = l.kind === "DynamicLabel" ? l.expr : l.kind === "Interpolation" ? l : undefined;
  if (expr === undefined) return undefined;
  if (resolvingLabels.has(d)) {
    return { t: "value", v: bottom("eval", "cyclic reference in field alias", [d.label.pos]) };
  }
  resolvingLabels.add(d);
  try {
    const key = resolveDefaultValue(evalExpr(expr, f));
    if (key.t === "string") {
      // Not created here: a reference must not make the field exist before its declaration runs.
      const a = f.vertex.arcs?.get(strLabel(key.v));
      if (a !== undefined) return { t: "vertex", v: a };
      return { t: "value", v: bottom("incomplete", `undefined field: ${key.v}`, [d.label.pos]) };
    }
    if (key.t === "bottom") return { t: "value", v: key };
    return {
      t: "value",
      v: bottom("incomplete", `invalid non-concrete label ${formatValue(key)}`, [expr.pos]),
    };
  } finally {
    resolvingLabels.delete(d);
  }
}

function letVertex(f: Frame, decl: ast.LetClause): Vertex {
  // `let X = self` (aliasv2) names the enclosing block itself, not a copy of it: a copy would
  // contain the let again (a structural cycle) and would not see what the block is unified with.
  const e = decl.expr;
  if (e.kind === "Ident" && (e.name === "self" || e.name === "__self")) {
    const sv = e.name === "__self" || resolveName("self", f) === undefined ? selfVertex(f) : undefined;
    if (sv !== undefined) return sv;
  }
  f.lets ??= new Map();
  let v = f.lets.get(decl);
  if (v === undefined) {
    v = new Vertex(f.vertex, decl.ident.name);
    v.fieldType = 0;
    v.isLet = true;
    v.addConj({ expr: decl.expr, env: f, ctx: [], value: undefined, pos: decl.expr.pos, embed: false });
    f.lets.set(decl, v);
  }
  return v;
}
