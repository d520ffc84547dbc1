/**
 * The closedness builtins of the `explicitopen` experiment, which `cue fix` writes when it
 * rewrites old-style embeddings:
 *  - `__closeAll(lit)` closes a struct or list literal recursively, like a definition does;
 *  - `__reclose({X..., fields})` restores the closedness that the spread values had before they
 *    were opened with `...`: the result is closed at its top level when a spread value was closed,
 *    and the literal's own fields are closed recursively when a spread value was a definition.
 * Both are only available in files that enable the experiment.
 */

import type * as ast from "../syntax/ast.js";
import { addConjunct, inDefinition, setErr } from "./collect.js";
import { isExplicitOpen } from "./experiments.js";
import { resolveRef } from "./expr.js";
import { newFrame } from "./scope.js";
import { bottom } from "./values.js";
import { CloseCtx, type Conjunct, type Vertex } from "./vertex.js";

/** The names of the builtins this module implements. */
export function isClosingBuiltin(name: string): boolean {
  return name === "__closeAll" || name === "__reclose";
}

/** Unifies `__closeAll(…)` or `__reclose(…)` into `v`. */
export function addClosingCall(v: Vertex, x: ast.Call, c: Conjunct): void {
  const name = x.fn.kind === "Ident" ? x.fn.name : "";
  if (name === "__closeAll") {
    closeAll(v, x, c);
    return;
  }
  reclose(v, x, c);
}

function closeAll(v: Vertex, x: ast.Call, c: Conjunct): void {
  if (!isExplicitOpen(c.env)) {
    setErr(v, bottom("eval", "__closeAll may only be used when explicitopen is enabled", [x.pos]));
    return;
  }
  const a = x.args.length === 1 ? unparen(x.args[0] as ast.Expr) : undefined;
  if (a === undefined || (a.kind !== "Struct" && a.kind !== "List")) {
    setErr(v, bottom("eval", "__closeAll: argument must be a struct or list literal", [x.pos]));
    return;
  }
  const cc = new CloseCtx(true);
  if (c.open === true) cc.skipAt = v;
  addConjunct(v, { ...c, expr: a, ctx: [...c.ctx, cc] });
}

type Closedness = "open" | "top" | "recursive";

function reclose(v: Vertex, x: ast.Call, c: Conjunct): void {
  const fail = (why: string): void =>
    setErr(v, bottom("eval", `error in call to __reclose: ${why}`, [x.pos]));
  if (!isExplicitOpen(c.env)) {
    fail("__reclose may only be used when explicitopen is enabled");
    return;
  }
  let arg = x.args.length === 1 ? unparen(x.args[0] as ast.Expr) : undefined;
  let ctx = c.ctx;
  // `__reclose(close({…}))`: close() keeps closing the top level.
  if (arg?.kind === "Call" && isCloseCall(arg) && arg.args.length === 1) {
    ctx = [...ctx, new CloseCtx(false)];
    arg = unparen(arg.args[0] as ast.Expr);
  }
  if (arg === undefined || arg.kind !== "Struct") {
    fail("argument must be a struct literal");
    return;
  }
  const lit = arg;
  const frame = newFrame(c.env, v, lit);
  const spreads: ast.Expr[] = [];
  let kind: Closedness = "open";
  for (const d of lit.decls) {
    if (d.kind !== "Embed" || d.expr.kind !== "Postfix" || d.expr.op !== "...") continue;
    spreads.push(d.expr.expr);
    const k = closednessOf(unparen(d.expr.expr), frame);
    if (k === "recursive" || (k === "top" && kind === "open")) kind = k;
  }
  const top = kind === "open" ? ctx : [...ctx, new CloseCtx(false)];
  // The literal's own fields: closed recursively below this vertex when a spread value was a
  // definition (the top level is closed by `top`, which also admits the spread values' fields).
  const own = ownDecls(lit);
  if (own.decls.length > 0) {
    let ownCtx = top;
    if (kind === "recursive") {
      const below = new CloseCtx(true);
      below.skipAt = v;
      ownCtx = [...top, below];
    }
    addConjunct(v, { ...c, expr: own, ctx: ownCtx });
  }
  for (const s of spreads) {
    addConjunct(v, { expr: s, env: frame, ctx: top, value: undefined, pos: s.pos, embed: true, open: true });
  }
}

const ownCache = new WeakMap<ast.StructLit, ast.StructLit>();

/** The literal without its spread embeddings (same scope: the frame still binds the original). */
function ownDecls(lit: ast.StructLit): ast.StructLit {
  let o = ownCache.get(lit);
  if (o === undefined) {
    // Built field by field: parser nodes may keep `kind` and `pos` on their prototype.
    o = {
      kind: "Struct",
      decls: lit.decls.filter(
        (d) => !(d.kind === "Embed" && d.expr.kind === "Postfix" && d.expr.op === "..."),
      ),
      implicit: lit.implicit,
      pos: lit.pos,
      end: lit.end,
    };
    ownCache.set(lit, o);
  }
  return o;
}

/** How the value a spread refers to was closed before `...` opened it. */
function closednessOf(e: ast.Expr, env: Conjunct["env"]): Closedness {
  if (e.kind === "Call") return isCloseCall(e) ? "top" : "open";
  if (e.kind !== "Ident" && e.kind !== "Selector") return "open";
  const r = resolveRef(e, env);
  if (r.t !== "vertex") return "open";
  if (!r.v.isLet && inDefinition(r.v)) return "recursive";
  let k: Closedness = "open";
  for (const rc of r.v.conjuncts) {
    const x = rc.expr === undefined ? undefined : unparen(rc.expr);
    if (x === undefined) continue;
    if (x.kind === "Call" && isCloseCall(x)) k = k === "open" ? "top" : k;
    else if (x.kind === "Call" && x.fn.kind === "Ident" && x.fn.name === "__closeAll") k = "recursive";
    else if ((x.kind === "Ident" || x.kind === "Selector") && closednessOf(x, rc.env) === "recursive")
      k = "recursive";
  }
  return k;
}

function isCloseCall(e: ast.Call): boolean {
  return e.fn.kind === "Ident" && e.fn.name === "close";
}

function unparen(e: ast.Expr): ast.Expr {
  return e.kind === "Paren" ? unparen(e.expr) : e;
}
