/**
 * Closedness bookkeeping. Every struct literal, pattern, `...` and dynamic field that reaches a
 * vertex through closedness contexts (references to definitions, `close()`) is recorded once, with
 * the context set it came through, in one flat array per vertex: `[ctxSet, item, ctxSet, item, …]`.
 * A context's group — what it allows at this vertex — is the items whose set contains it. Keeping
 * one record per literal instead of one group object per context and vertex matters at scale: a
 * field nested in five definitions would otherwise allocate five groups and five label lists.
 */

import type * as ast from "../syntax/ast.js";
import { identLabel } from "../syntax/derived-nodes.js";
import type { Pos } from "../syntax/position.js";
import { appendTo } from "./collect.js";
import { type ClosedBy, normalizePositions, toPosition } from "./errors.js";
import { patternMatches } from "./evaluate.js";
import {
  CloseCtx,
  type CloseSet,
  type EmbScope,
  type Group,
  type PatternEntry,
  posArray,
  staticLabels,
  type Vertex,
} from "./vertex.js";

/** The item recorded for a `...` (or a cyclic embedding, which allows every label). */
const OPEN = { open: true } as const;

type Item = ast.StructLit | PatternEntry | string | typeof OPEN;

function record(v: Vertex, ctx: CloseSet, item: Item): void {
  if (ctx.length === 0) return;
  const xs = v.closeItems;
  if (xs === undefined) v.closeItems = [ctx, item];
  else v.closeItems = xs.concat([ctx, item]);
}

/** A struct literal unified into `v` through the contexts `ctx`. */
export function closeLit(v: Vertex, ctx: CloseSet, lit: ast.StructLit): void {
  record(v, ctx, lit);
  for (const c of ctx) if (c.fromEmbed) embedScopes.add(v);
}

/** Vertices a struct literal that embeds a definition was unified into (see embedScopeRejects). */
const embedScopes = new WeakSet<Vertex>();

/** A pattern constraint declared through `ctx`. */
export function closePattern(v: Vertex, ctx: CloseSet, p: PatternEntry): void {
  record(v, ctx, p);
}

/** A `...` (or a cyclic embedding): the contexts allow every label here. */
export function closeOpen(v: Vertex, ctx: CloseSet): void {
  record(v, ctx, OPEN);
}

/** A dynamic or comprehension-generated field label, allowed by the contexts it came through. */
export function closeExtra(v: Vertex, ctx: CloseSet, label: string): void {
  record(v, ctx, label);
}

function isLit(x: Item): x is ast.StructLit {
  return typeof x === "object" && "kind" in x;
}

function isPattern(x: Item): x is PatternEntry {
  return typeof x === "object" && "field" in x;
}

/** Per context: the bit mask of the records it belongs to, and whether it closes at all. */
interface CtxInfo {
  readonly ctx: CloseCtx;
  mask: number;
  open: boolean;
  lits: number;
  patterns: boolean;
}

function contexts(xs: readonly unknown[]): CtxInfo[] {
  const out: CtxInfo[] = [];
  for (let i = 0, bit = 0; i < xs.length; i += 2, bit++) {
    const set = xs[i] as CloseSet;
    const item = xs[i + 1] as Item;
    for (const c of set) {
      let info: CtxInfo | undefined;
      for (const x of out) {
        if (x.ctx === c) {
          info = x;
          break;
        }
      }
      if (info === undefined) {
        info = { ctx: c, mask: 0, open: false, lits: 0, patterns: false };
        out.push(info);
      }
      if (bit < 31) info.mask |= 1 << bit;
      if (item === OPEN) info.open = true;
      else if (isLit(item)) info.lits++;
      else if (isPattern(item)) info.patterns = true;
    }
  }
  return out;
}

/** Whether a context closes its vertex at all (see CloseCtx.fromEmbed). */
function active(x: CtxInfo): boolean {
  if (x.ctx.andMember !== undefined) return false;
  return !x.ctx.fromEmbed || x.lits > 1 || x.patterns || x.open;
}

/** Whether the records of context `x` allow `label` (patterns included). */
function allowedBy(xs: readonly unknown[], x: CtxInfo, label: string, nested = false): boolean {
  const exact = xs.length > 62; // more records than mask bits: test membership directly
  for (let i = 0, bit = 0; i < xs.length; i += 2, bit++) {
    if (exact ? !(xs[i] as CloseSet).includes(x.ctx) : (x.mask & (1 << bit)) === 0) continue;
    const item = xs[i + 1] as Item;
    let hit = false;
    if (typeof item === "string") hit = item === label;
    else if (item === OPEN) hit = true;
    else if (isLit(item)) hit = staticLabels(item).has(label);
    else if (isPattern(item)) hit = patternMatches(item, label);
    if (hit && (nested || andMembersAllow(xs, xs[i] as CloseSet, x.ctx, label))) return true;
  }
  return false;
}

/**
 * For a record that came through a definition embedded with `&` (see CloseCtx.andMember): whether
 * every definition of that `&` allows `label` too.
 */
function andMembersAllow(xs: readonly unknown[], set: CloseSet, self: CloseCtx, label: string): boolean {
  for (const m of set) {
    const scope = m.andMember;
    if (scope === undefined || m === self) continue;
    for (const y of contexts(xs)) {
      if (y.ctx.andMember === scope && !allowedBy(xs, y, label, true)) return false;
    }
  }
  return true;
}

/** The contexts that close `v`, one per distinct set of records. */
export type Closing = readonly CtxInfo[];

/**
 * The contexts that close `v` (not open, active, not skipped at `v`): a label must be allowed by
 * each. Contexts that belong to the same records allow the same labels, so only one of them is
 * kept. Empty when nothing closes `v`.
 */
export function closingContexts(v: Vertex): Closing {
  const xs = v.closeItems;
  if (xs === undefined) return NONE;
  const exact = xs.length > 62;
  if (!exact && sameSet(xs)) {
    // The usual case: every record came through the same contexts, so each context belongs to
    // every record and one stands for all.
    let lits = 0;
    let patterns = false;
    for (let i = 1; i < xs.length; i += 2) {
      const item = xs[i] as Item;
      if (item === OPEN) return NONE;
      if (isLit(item)) lits++;
      else if (isPattern(item)) patterns = true;
    }
    for (const c of xs[0] as CloseSet) {
      if (c.andMember === undefined && c.skipAt !== v && (!c.fromEmbed || lits > 1 || patterns))
        return EVERY_RECORD;
    }
    return NONE;
  }
  const out: CtxInfo[] = [];
  for (const x of contexts(xs)) {
    if (x.open || x.ctx.skipAt === v || !active(x)) continue;
    if (!exact && out.some((y) => y.mask === x.mask)) continue;
    out.push(x);
  }
  return out;
}

function sameSet(xs: readonly unknown[]): boolean {
  const s0 = xs[0];
  for (let i = 2; i < xs.length; i += 2) if (xs[i] !== s0) return false;
  return true;
}

const NONE: Closing = [];
/** A context that belongs to every record (its `ctx` is never consulted). */
const EVERY_RECORD: Closing = [{ ctx: new CloseCtx(true), mask: -1, open: false, lits: 0, patterns: false }];

/**
 * The definition that refuses `label` at `v` (from {@link closingContexts}), with where the closed
 * struct is declared in it, for "field not allowed" messages; undefined when no definition did
 * (`close()`, an embedding).
 */
export function closingDefinition(v: Vertex, closing: Closing, label: string): ClosedBy | undefined {
  const xs = v.closeItems;
  if (xs === undefined) return undefined;
  let ctx: CloseCtx | undefined;
  if (closing === EVERY_RECORD) {
    for (const c of xs[0] as CloseSet) if (c.def !== undefined && c.skipAt !== v) ctx = c;
  } else {
    for (const x of closing) {
      if (x.ctx.def !== undefined && !allowedBy(xs, x, label)) ctx = x.ctx;
    }
  }
  const def = ctx?.def;
  if (ctx === undefined || def === undefined) return undefined;
  // The field of the definition that corresponds to `v`: follow v's path below the reference in
  // the definition's syntax (its vertices may not be evaluated, or already released).
  const here = v.path();
  const top = ctx.defAt?.path();
  // Outside the reference's tree (a value unified on its own), only the definition is known.
  const rel = top?.every((l, i) => here[i] === l) ? here.slice(top.length) : [];
  let exprs: ast.Expr[] = [];
  for (const c of def.conjuncts) if (c.expr !== undefined) exprs.push(c.expr);
  let pos: Pos[] = posArray(def.declPos);
  for (const l of rel) {
    const next: ast.Expr[] = [];
    const here: Pos[] = [];
    for (const e of exprs) fieldsNamed(e, l, next, here);
    if (here.length === 0) break;
    exprs = next;
    pos = here;
  }
  return { definition: def.path().join("."), positions: normalizePositions(pos).map(toPosition) };
}

/** The values (and label positions) of the fields named `label` a struct expression declares. */
function fieldsNamed(e: ast.Expr, label: string, values: ast.Expr[], pos: Pos[]): void {
  switch (e.kind) {
    case "Paren":
      fieldsNamed(e.expr, label, values, pos);
      return;
    case "Binary":
      if (e.op !== "&") return;
      fieldsNamed(e.left, label, values, pos);
      fieldsNamed(e.right, label, values, pos);
      return;
    case "Struct":
      for (const d of e.decls) {
        if (d.kind === "Field" && identLabel(d) === label) {
          values.push(d.value);
          pos.push(d.alias === undefined ? d.pos : d.label.pos);
        } else if (d.kind === "Embed") fieldsNamed(d.expr, label, values, pos);
      }
      return;
    default:
      return;
  }
}

/** Whether `label` is allowed at `v` by every closing context (from {@link closingContexts}). */
export function allows(v: Vertex, closing: Closing, label: string): boolean {
  const xs = v.closeItems;
  if (xs === undefined) return true;
  for (const x of closing) {
    if (allowedBy(xs, x, label)) continue;
    // Definitions embedded in the same struct allow each other's fields below it (#A and #B in
    // `{#A, #B}` together describe what the struct holds).
    const scope = x.ctx.skipAt;
    if (
      scope !== undefined &&
      contexts(xs).some((h) => h.ctx !== x.ctx && h.ctx.skipAt === scope && allowedBy(xs, h, label))
    )
      continue;
    if (addedBeside(v, closing === EVERY_RECORD ? (xs[0] as CloseSet) : [x.ctx], label)) continue;
    return false;
  }
  return true;
}

/**
 * Whether every context of `set` that closes `v` was met inside an embedding (a `close()` or a
 * definition in `{close({a?: close({…})}), a: b: 1}`) and `label` has a conjunct from the struct
 * that embeds it, outside that embedding: cue's typo check takes such a field as added beside the
 * embedding, not checked by it (typocheck.go, hasEvidenceForOne).
 */
function addedBeside(v: Vertex, set: CloseSet, label: string): boolean {
  const a = v.arcs?.get(label);
  if (a === undefined) return false;
  let any = false;
  for (const c of set) {
    if (c.skipAt === v || c.andMember !== undefined) continue;
    const m = c.embIn;
    if (m === undefined) return false;
    if (!a.conjuncts.some((x) => x.emb?.s === m.s && !within(x.emb.e, m.e))) return false;
    any = true;
  }
  return any;
}

/** Whether embedding `e` is `scope` or nested in it. */
function within(e: EmbScope | undefined, scope: EmbScope | undefined): boolean {
  for (let x = e; x !== undefined; x = x.parent) if (x === scope) return true;
  return false;
}

/**
 * The fields an embedded `&` declares at `v` that its definition does not allow (`{#A & {b: 1}}`
 * with `#A` not declaring `b`): the contexts embedded at `v` with an `&` scope check them.
 */
export function andScopeRejects(v: Vertex): string[] {
  const xs = v.closeItems;
  if (xs === undefined) return NO_LABELS;
  // Almost never: look without allocating first.
  let any = false;
  for (let i = 0; i < xs.length && !any; i += 2) {
    for (const c of xs[i] as CloseSet) {
      if (c.skipAt === v && c.andScope !== undefined) {
        any = true;
        break;
      }
    }
  }
  if (!any) return NO_LABELS;
  let out: string[] | undefined;
  for (const x of contexts(xs)) {
    const scope = x.ctx.andScope;
    if (x.ctx.skipAt !== v || scope === undefined) continue;
    for (const lit of scope.lits) {
      for (const label of staticLabels(lit)) {
        const c0 = label.charCodeAt(0);
        if (c0 === 0x5f || c0 === 0x23 || allowedBy(xs, x, label)) continue;
        out ??= [];
        out.push(label);
      }
    }
  }
  return out ?? NO_LABELS;
}

const NO_LABELS: string[] = [];

/** Whether some context closes `v` (not open and active; used for "undefined field" errors). */
export function closedByContext(v: Vertex): boolean {
  const xs = v.closeItems;
  if (xs === undefined) return false;
  for (const x of contexts(xs)) if (!x.open && active(x)) return true;
  return false;
}

/** The groups of `v` as objects (inspection tools). */
export function groupsOf(v: Vertex): Group[] {
  const xs = v.closeItems;
  if (xs === undefined) return [];
  const out: Group[] = [];
  for (const x of contexts(xs)) {
    const g: Group = { ctx: x.ctx, lits: [], extra: undefined, patterns: undefined, open: x.open };
    for (let i = 0; i < xs.length; i += 2) {
      if (!(xs[i] as CloseSet).includes(x.ctx)) continue;
      const item = xs[i + 1] as Item;
      if (typeof item === "string") g.extra = appendTo(g.extra, item);
      else if (item === OPEN) g.open = true;
      else if (isLit(item)) g.lits.push(item);
      else if (isPattern(item)) g.patterns = appendTo(g.patterns, item);
    }
    out.push(g);
  }
  return out;
}

/**
 * Fields below a struct that embeds a definition (`x: #X & {#Y, objs: name: "n"}`) that only a
 * definition unified beside that struct gives (`#X`'s `objs: extra`): cue closes such a struct
 * recursively, and the other definition is no evidence for it (closing the nested struct of the
 * other definition, even one open with `...`). Conservative: only where the struct's own literals
 * declare the path down to `v` as plain struct literals without embeddings, patterns or `...`.
 */
export function embedScopeRejects(v: Vertex): string[] {
  if (v.closeItems === undefined || v.arcs === undefined || !underEmbedScope(v)) return NO_LABELS;
  let out: string[] | undefined;
  for (const [label, a] of v.arcs) {
    const c0 = label.charCodeAt(0);
    if (c0 === 0x5f || c0 === 0x23 || a.notAllowed || a.conjuncts.length === 0) continue;
    let outsideAt: Vertex | undefined;
    let foreign = true;
    for (const c of a.conjuncts) {
      const d = c.ctx.find((x) => x.def !== undefined && x.recursive && x.andMember === undefined);
      if (d?.defAt === undefined) {
        foreign = false;
        break;
      }
      // The definition unified at or above the embedding struct (not inside it).
      if (outsideAt === undefined || isAncestor(d.defAt, outsideAt)) outsideAt = d.defAt;
    }
    if (!foreign || outsideAt === undefined) continue;
    if (embedScopeRefuses(v, label, outsideAt)) {
      out ??= [];
      out.push(label);
    }
  }
  return out ?? NO_LABELS;
}

/** Whether a struct that embeds a definition was unified into an ancestor of `v` (8 levels up). */
function underEmbedScope(v: Vertex): boolean {
  for (let s = v.parent, n = 0; s !== undefined && n < 8; s = s.parent, n++)
    if (embedScopes.has(s)) return true;
  return false;
}

/**
 * Whether `v` is below a struct that embeds a definition and has a conjunct from a definition
 * unified beside that struct (where {@link embedScopeRejects} may refuse fields).
 */
export function foreignInEmbedScope(v: Vertex): boolean {
  if (!underEmbedScope(v)) return false;
  for (const c of v.conjuncts) {
    for (const d of c.ctx) {
      if (d.def === undefined || d.defAt === undefined || !d.recursive || d.andMember !== undefined) continue;
      for (let s = v.parent, n = 0; s !== undefined && n < 8; s = s.parent, n++) {
        if (embedScopes.has(s) && d.skipAt !== s && isAncestor(d.defAt, s)) return true;
      }
    }
  }
  return false;
}

function isAncestor(a: Vertex, b: Vertex): boolean {
  for (let x: Vertex | undefined = b; x !== undefined; x = x.parent) if (x === a) return true;
  return false;
}

function embedScopeRefuses(v: Vertex, label: string, outsideAt: Vertex): boolean {
  const rel: string[] = [];
  for (let s = v.parent, at: Vertex = v, n = 0; s !== undefined && n < 8; at = s, s = s.parent, n++) {
    rel.unshift(at.label);
    const xs = s.closeItems;
    if (xs === undefined || !embedScopes.has(s) || !isAncestor(outsideAt, s)) continue;
    for (const x of contexts(xs)) {
      if (!x.ctx.fromEmbed || !active(x) || x.open) continue;
      const decl = declaredBelow(xs, x, rel, label);
      if (decl === false) return true;
    }
  }
  return false;
}

/**
 * Whether the literals of context `x` at `s` declare `label` at path `rel` below `s`; undefined
 * when that cannot be told from plain struct literals.
 */
function declaredBelow(
  xs: readonly unknown[],
  x: CtxInfo,
  rel: readonly string[],
  label: string,
): boolean | undefined {
  let exprs: ast.Expr[] = [];
  for (let i = 0; i < xs.length; i += 2) {
    const item = xs[i + 1] as Item;
    if (isLit(item) && (xs[i] as CloseSet).includes(x.ctx)) exprs.push(item);
  }
  const top = exprs;
  for (const l of rel) {
    const next: ast.Expr[] = [];
    for (const e of exprs) {
      if (!plainStruct(e, exprs === top)) return undefined;
      fieldsNamed(e, l, next, []);
    }
    if (next.length === 0) return undefined;
    exprs = next;
  }
  for (const e of exprs) {
    if (!plainStruct(e, exprs === top)) return undefined;
    const found: ast.Expr[] = [];
    fieldsNamed(e, label, found, []);
    if (found.length > 0) return true;
  }
  return false;
}

/** A struct literal whose labels are all static fields (embedded definitions aside at the top). */
function plainStruct(e: ast.Expr, top: boolean): boolean {
  while (e.kind === "Paren") e = e.expr;
  if (e.kind !== "Struct") return false;
  for (const d of e.decls) {
    if (d.kind === "Field") {
      if (identLabel(d) === undefined && d.label.kind !== "String") return false;
    } else if (d.kind === "Embed") {
      if (!top || !isDefRef(d.expr)) return false;
    } else if (d.kind !== "Let" && d.kind !== "Attribute") return false;
  }
  return true;
}

function isDefRef(e: ast.Expr): boolean {
  if (e.kind === "Ident") return e.name.startsWith("#") || e.name.startsWith("_#");
  return e.kind === "Selector" && e.sel.kind === "Ident" && e.sel.name.startsWith("#");
}

/**
 * The fields of `v` when `v` is below a struct that embeds a definition, where that struct was
 * reached through another definition (`out: #D & {objs: one: name: "n"}` with
 * `#D: #P & {#E, objs: two: {…}}`), and the struct's literals spell out the path down to `v`'s
 * parent but do not declare `v` (`objs.one`): cue closes such a struct recursively with its own
 * evidence model, rejecting fields below the undeclared one (even those the user gives), which the
 * engine does not reproduce. Only where no other closedness check refused.
 */
export function embedScopeUnsure(v: Vertex): string[] {
  if (v.arcs === undefined || v.notAllowed || v.err !== undefined || !undeclaredInEmbedScope(v))
    return NO_LABELS;
  let out: string[] | undefined;
  for (const [label, a] of v.arcs) {
    const d0 = label.charCodeAt(0);
    if (d0 === 0x5f || d0 === 0x23 || a.notAllowed || a.err !== undefined || a.conjuncts.length === 0)
      continue;
    out ??= [];
    out.push(label);
  }
  return out ?? NO_LABELS;
}

/** Whether `v` is a field that a struct embedding a definition, reached through another one, omits (see embedScopeUnsure). */
export function undeclaredInEmbedScope(v: Vertex): boolean {
  const p = v.parent;
  if (p === undefined) return false;
  const c0 = v.label.charCodeAt(0);
  return c0 !== 0x5f && c0 !== 0x23 && underEmbedScope(p) && embedScopeUndeclared(p, v.label);
}

/** Whether a closed embedding context reached through a definition at an ancestor omits `label` below `v`. */
function embedScopeUndeclared(v: Vertex, label: string): boolean {
  const rel: string[] = [];
  for (let s = v.parent, at: Vertex = v, n = 0; s !== undefined && n < 8; at = s, s = s.parent, n++) {
    rel.unshift(at.label);
    const xs = s.closeItems;
    if (xs === undefined || !embedScopes.has(s)) continue;
    for (const x of contexts(xs)) {
      if (!x.ctx.fromEmbed || !active(x) || x.open || !throughDefinition(xs, x.ctx)) continue;
      if (declaredBelow(xs, x, rel, label) === false) return true;
    }
  }
  return false;
}

/** Whether the literals of embedding context `e` came through a reference to a definition. */
function throughDefinition(xs: readonly unknown[], e: CloseCtx): boolean {
  for (let i = 0; i < xs.length; i += 2) {
    const set = xs[i] as CloseSet;
    if (!set.includes(e)) continue;
    for (const c of set)
      if (
        c !== e &&
        c.def !== undefined &&
        c.recursive &&
        c.andMember === undefined &&
        c.skipAt === undefined
      )
        return true;
  }
  return false;
}
