import type { CueError, CueValue } from "../cue/index.js";
import { constraintHint, rawValueText } from "./constraint-hints.js";
import { isObj } from "./decode-reader.js";
import type { ConfigDiagnostic, SourcePosition } from "./diagnostic.js";
import { formatPath } from "./diagnostic.js";
import { foldHosts } from "./fold-hosts.js";
import { createInstances, type Instances, thousands } from "./instances.js";
import type { DocPath, Locator } from "./locate.js";
import { createLocator } from "./locate.js";
import { LABEL_KEY_PATTERN, RESOURCES_KEY_PATTERN, SINK_KEY_PATTERN, VARS_KEY_PATTERN } from "./patterns.js";
import { exportRaw } from "./raw-document.js";
import { branchDefinition, nearestName, unknownFieldAdvice } from "./schema-fields.js";
import type { ConfigProfile, UnionKind } from "./type-checks.js";
import { allowedTypes, checkTypes, explainedBy } from "./type-checks.js";

/** At most this many failing union members are re-checked against their branch for precise errors. */
const MAX_RECHECKS = 200;

/** The union member (check, contact, sink) a path lies in, as [kind, rootPath]. */
function unionOf(path: readonly string[]): [UnionKind, readonly string[]] | undefined {
  if (path[0] === "hosts" && path.length >= 3) {
    if (path[2] === "check") return ["check", path.slice(0, 3)];
    if (path[2] === "services" && path.length >= 5 && path[4] === "check") return ["check", path.slice(0, 5)];
    return undefined;
  }
  if ((path[0] === "contacts" || path[0] === "sinks") && path.length >= 2) {
    return [path[0] === "contacts" ? "contact" : "sink", path.slice(0, 2)];
  }
  return undefined;
}

/** Everything the translation needs to know about the document that failed. */
export interface FailedDocument {
  readonly file: string;
  readonly text: string;
  /** The user's document evaluated alone (no schema). */
  readonly user: CueValue;
  /** The compiled schema, for re-checking one union member against its branch. */
  readonly schema: CueValue;
  readonly profile: ConfigProfile | undefined;
}

interface Context {
  /** The definitions that closed structs, by struct path, from the errors of the whole document. */
  readonly closers: ReadonlyMap<string, CueError["closedBy"]>;
  readonly doc: FailedDocument;
  readonly raw: unknown;
  readonly locator: Locator;
}

/**
 * Turns the engine's errors for a document that did not unify with the schema into one readable
 * diagnostic per problem, at the user's file:line:column.
 *
 * A failed disjunction (`#Check`, `#Contact`, `#Sink`) makes CUE report every branch's complaint.
 * Instead: a member whose `type` is unknown (or refused by the profile) gets one diagnostic naming
 * the allowed types; a member with a known type is re-checked against that type's branch alone, so
 * its errors are that branch's, precisely placed. Messages that only say "conflicting values" get
 * the field's rule in words (constraint-hints.ts).
 */
export function diagnosticsFromCueErrors(all: readonly CueError[], doc: FailedDocument): ConfigDiagnostic[] {
  // Hosts that repeat another host's errors (one template) are worked out once (fold-hosts.ts).
  const { errors, folded } = foldHosts(all, doc.file);
  // With hosts folded, only the parts the errors are in are exported: the document whole would be
  // every host evaluated again.
  const exported = exportRaw(doc.user, errors, folded.size === 0);
  const raw = exported?.data;
  const locator = createLocator(raw, exported?.positions, doc.file, doc.text);
  const closers = new Map<string, CueError["closedBy"]>();
  for (const e of errors) {
    if (e.closedBy !== undefined) closers.set(e.path.slice(0, -1).join("\0"), e.closedBy);
  }
  const ctx: Context = { closers, doc, raw, locator };
  const out: ConfigDiagnostic[] = [];
  // Diagnostics by source position and message: the same problem in many places (a template)
  // is one diagnostic that counts the others (instances.ts), folded hosts included.
  const seenAt = new Map<string, Instances>();
  const count = (g: Instances, path: DocPath): void => {
    g.add(path);
    const others = path[0] === "hosts" && path.length > 1 ? folded.get(String(path[1])) : undefined;
    if (others !== undefined) for (const h of others) g.add(["hosts", h, ...path.slice(2)]);
  };
  const emit = (d: ConfigDiagnostic, path: DocPath, detail: string): Instances => {
    const key = `${d.file}:${d.line}:${d.column}:${detail}`;
    let g = seenAt.get(key);
    if (g === undefined) {
      g = createInstances(out.length);
      seenAt.set(key, g);
      out.push(d);
    }
    count(g, path);
    return g;
  };
  const refused = checkTypes(raw, doc.profile);
  for (const r of refused) emit(at(locator.at(r.reportAt), r.reportAt, r.message), r.reportAt, r.message);

  const byUnion = new Map<string, { kind: UnionKind; root: readonly string[]; errors: CueError[] }>();
  const plain: CueError[] = [];
  for (const e of errors) {
    if (explainedBy(refused, e.path)) continue;
    const u = unionOf(e.path);
    if (u === undefined) {
      plain.push(e);
      continue;
    }
    const key = JSON.stringify(u[1]);
    const g = byUnion.get(key) ?? { kind: u[0], root: u[1], errors: [] };
    g.errors.push(e);
    byUnion.set(key, g);
  }
  let rechecks = 0;
  // Members with the same errors at the same source positions (one template used by many hosts)
  // are re-checked once: the others reuse that answer under their own path.
  const bySignature = new Map<string, { root: readonly string[]; precise: CueError[] }>();
  for (const g of byUnion.values()) {
    const sig = signature(g.errors, g.root);
    const known = bySignature.get(sig);
    let precise: CueError[] | undefined;
    if (known !== undefined) {
      precise = known.precise.map((e) => ({ ...e, path: [...g.root, ...e.path.slice(known.root.length)] }));
    } else if (rechecks++ < MAX_RECHECKS) {
      precise = recheckBranch(g.kind, g.root, doc);
      if (precise !== undefined && precise.length > 0) bySignature.set(sig, { root: g.root, precise });
    }
    const chosen = precise !== undefined && precise.length > 0 ? precise : g.errors;
    plain.push(...chosen.filter((e) => !explainedBy(refused, e.path)));
  }

  const seenPath = new Set<string>();
  // The same key before translating, for errors the translation does not move: a template's
  // mistake repeated by hosts that are not folded is translated once too.
  const before = new Map<string, Instances>();
  // Fields the schema adds (defaults) to a struct a user's definition closed: one diagnostic per
  // struct, naming them all.
  const added = new Map<
    string,
    { parent: DocPath; names: string[]; by: { name: string; pos: SourcePosition } }
  >();
  for (const e of withoutNoise(plain, raw)) {
    const { pos, path } = placeOf(e, ctx);
    const by = /not allowed/.test(e.message) ? closerOf(e, ctx) : undefined;
    if (by !== undefined && path.length > 1 && !writtenByUser(e, ctx, path)) {
      const parent = path.slice(0, -1);
      const key = parent.join("\0");
      const g = added.get(key) ?? { parent, names: [], by };
      const name = String(path[path.length - 1]);
      if (!g.names.includes(name)) g.names.push(name);
      added.set(key, g);
      continue;
    }
    const pathKey = path.join("\0");
    // One diagnostic per problem: an error the engine repeats for every field that refers to the
    // failing one (low_threshold's bound on a broken high_threshold) is the same problem.
    if (seenPath.has(pathKey)) continue;
    seenPath.add(pathKey);
    const prefix = `${formatPath(e.path)}: `;
    const detail = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
    // A missing field is placed at the struct that lacks it, not at the error's own position.
    const early =
      userPosition(e, doc.file) !== undefined && e.code !== "incomplete" && !/required/.test(e.message)
        ? `${pos.file}:${pos.line}:${pos.column}:${e.code}:${detail}`
        : undefined;
    const known = early === undefined ? undefined : before.get(early);
    if (known !== undefined) {
      count(known, path);
      continue;
    }
    const g = emit(translate(e, ctx, pos, path), path, detail);
    if (early !== undefined) before.set(early, g);
  }
  for (const g of added.values()) {
    const names = g.names.map((n) => `"${n}"`).join(", ");
    const where = `${g.by.pos.file}:${g.by.pos.line}:${g.by.pos.column}`;
    const message = `field not allowed: Lookout's schema adds ${names} (${g.names.length === 1 ? "a default" : "defaults"}), but the struct is closed by definition ${g.by.name} (${where}); declare ${g.names.length === 1 ? "it" : "them"} there or leave the struct open with ...`;
    emit(at(g.by.pos, g.parent, message), g.parent, message);
  }
  for (const g of seenAt.values()) {
    const counted = g.counted();
    if (counted === undefined) continue;
    const d = out[g.index] as ConfigDiagnostic;
    out[g.index] = { ...d, message: `${d.message} ${counted.text}`, instances: counted.n };
  }
  if (out.length <= MAX_DIAGNOSTICS) return out;
  const rest = out.length - MAX_DIAGNOSTICS + 1;
  const shown = out.slice(0, MAX_DIAGNOSTICS - 1);
  const last = shown[shown.length - 1] as ConfigDiagnostic;
  shown.push({
    file: last.file,
    line: last.line,
    column: last.column,
    message: `${thousands(rest)} more problems not shown (fix these first)`,
  });
  return shown;
}

/** At most this many diagnostics are returned (the last one says how many more there were). */
export const MAX_DIAGNOSTICS = 1000;

/** The errors of a union member as code, message and positions, its own path made relative. */
function signature(errors: readonly CueError[], root: readonly string[]): string {
  return errors
    .map((e) => {
      const rel = e.path.slice(root.length).join(".");
      const pos = e.positions.map((p) => `${p.file}:${p.line}:${p.column}`).join(",");
      const prefix = `${formatPath(e.path)}: `;
      const msg = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
      return `${rel}|${e.code}|${msg}|${pos}`;
    })
    .sort()
    .join("\n");
}

/** The user's definition that closed the struct of a "field not allowed" error, if one did. */
function closerOf(
  e: CueError,
  ctx: Context,
): { name: string; pos: SourcePosition; allowed: readonly string[] } | undefined {
  // The error's own closer first: a field the user's definition declares can still be refused by
  // the schema's definition that closes the same struct (then the schema is at fault, not the user's).
  return userDefinition(e.closedBy ?? ctx.closers.get(e.path.slice(0, -1).join("\0")), ctx.doc.file);
}

/** Whether the user's document writes the field an error is about. */
function writtenByUser(e: CueError, ctx: Context, path: DocPath): boolean {
  return ctx.locator.exact(path) !== undefined || userPosition(e, ctx.doc.file) !== undefined;
}

const SUMMARY = /^\d+ errors in empty disjunction:*$/;

/**
 * Drops what the engine reports beside the real problem, the way `cue` does too: the
 * "N errors in empty disjunction" headline when the disjuncts' own errors follow it, and, in an
 * snmp check with exactly one of `community` and `user`, the other disjunct's complaint that the
 * one written must be absent.
 */
function withoutNoise(errors: readonly CueError[], raw: unknown): CueError[] {
  // Every path prefix of an error that is not a summary: a summary at one of them is noise.
  const below = new Set<string>();
  for (const o of errors) {
    if (SUMMARY.test(o.message)) continue;
    let key = "";
    below.add(key);
    for (const k of o.path) {
      key += `${k}\0`;
      below.add(key);
    }
  }
  return errors.filter((e) => {
    if (SUMMARY.test(e.message)) return !below.has(e.path.map((k) => `${k}\0`).join(""));
    const last = e.path[e.path.length - 1];
    if ((last === "community" || last === "user") && /_\|_/.test(e.message)) {
      let check: unknown = raw;
      for (const k of e.path.slice(0, -1)) check = isObj(check) ? check[k] : undefined;
      return !(
        isObj(check) &&
        check.type === "snmp" &&
        (check.community === undefined) !== (check.user === undefined)
      );
    }
    return true;
  });
}

/** Errors of one union member unified with its own branch only, with paths from the root. */
function recheckBranch(
  kind: UnionKind,
  root: readonly string[],
  doc: FailedDocument,
): CueError[] | undefined {
  const member = doc.user.lookup(root);
  const typeValue = member?.lookup(["type"])?.export();
  if (member === undefined || typeValue === undefined || !typeValue.ok) return undefined;
  const type = typeValue.data;
  if (typeof type !== "string" || !allowedTypes(kind, undefined).includes(type)) return undefined;
  // The snmp branch's own disjunction (exactly one of community and user) hides which field is at
  // fault; checkTypes reports that rule, and #SnmpFields, the branch without it, names the rest.
  const def = kind === "check" && type === "snmp" ? "#SnmpFields" : branchDefinition(kind, type);
  const branch = def === undefined ? undefined : doc.schema.lookup([def]);
  if (branch === undefined) return undefined;
  const unified = branch.unify(member);
  const result = unified.export();
  const errors = result.ok ? unified.errors : result.errors;
  return errors.map((e) => ({ ...e, path: [...root, ...e.path] }));
}

function at(pos: SourcePosition, path: DocPath, message: string): ConfigDiagnostic {
  return { message: `${formatPath(path)}: ${message}`, file: pos.file, line: pos.line, column: pos.column };
}

/** List indexes as numbers (CUE paths carry them as strings), so paths print as `levels.0`. */
function normalizePath(path: readonly string[], raw: unknown): (string | number)[] {
  const out: (string | number)[] = [];
  let v = raw;
  for (const k of path) {
    if (Array.isArray(v)) {
      out.push(Number(k));
      v = v[Number(k)];
    } else {
      out.push(k);
      v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
    }
  }
  return out;
}

/** The user's definition that closed the struct of a "field not allowed" error, if one did. */
function userDefinition(
  by: CueError["closedBy"],
  file: string,
): { name: string; pos: SourcePosition; allowed: readonly string[] } | undefined {
  const p = by?.positions.find((x) => x.file === file);
  if (by === undefined || p === undefined) return undefined;
  return { name: by.definition, pos: p, allowed: by.allowed ?? [] };
}

/** The user's position among the engine's, if any. */
function userPosition(e: CueError, file: string): SourcePosition | undefined {
  for (const p of e.positions) if (p.file === file) return p;
  return undefined;
}

/**
 * For an error the engine attached to a whole check, contact or sink (a disjunction inside the
 * branch failed), the field of that member whose value sits at the error's position.
 */
function leafAt(root: DocPath, pos: SourcePosition, ctx: Context): DocPath | undefined {
  let member: unknown = ctx.raw;
  for (const k of root)
    member =
      member !== null && typeof member === "object"
        ? (member as Record<string, unknown>)[String(k)]
        : undefined;
  if (member === null || typeof member !== "object" || Array.isArray(member)) return undefined;
  for (const k of Object.keys(member)) {
    const p = ctx.locator.at([...root, k]);
    if (p.line === pos.line && p.column === pos.column) return [...root, k];
  }
  return undefined;
}

const VAGUE = /conflicting values|empty disjunction|incompatible list lengths/;

/** Where an error is shown, and the document path it is about. */
function placeOf(e: CueError, ctx: Context): { pos: SourcePosition; path: DocPath } {
  const { doc, raw, locator } = ctx;
  // Always a place in the user's file: a diagnostic pointing into Lookout's schema helps no one.
  const pos = userPosition(e, doc.file) ?? locator.at(e.path);
  let path: DocPath = normalizePath(e.path, raw);
  const u = unionOf(e.path);
  if (u !== undefined && u[1].length === path.length && /empty disjunction/.test(e.message)) {
    path = leafAt(path, pos, ctx) ?? path;
  }
  return { pos, path };
}

function translate(e: CueError, ctx: Context, pos: SourcePosition, path: DocPath): ConfigDiagnostic {
  const { doc, raw, locator } = ctx;
  if (e.code === "syntax") return { message: e.message, file: pos.file, line: pos.line, column: pos.column };
  if (path.length === 0) {
    const m = /mismatched types (\w+) and struct/.exec(e.message);
    const message =
      m === null
        ? e.message
        : `the document must be a struct of top-level fields, not ${/^[aeiou]/.test(m[1] ?? "") ? "an" : "a"} ${m[1]}`;
    return { message, file: pos.file, line: pos.line, column: pos.column };
  }
  const last = String(path[path.length - 1]);
  const parent = path.slice(0, -1);
  if (/not allowed/.test(e.message)) {
    const closer = closerOf(e, ctx);
    if (closer !== undefined) {
      // A definition of the user's closed the struct: say what CUE says and point at it.
      const where = `${closer.pos.file}:${closer.pos.line}:${closer.pos.column}`;
      const near = nearestName(last, closer.allowed);
      return at(
        pos,
        path,
        `field not allowed: the struct is closed by definition ${closer.name} (${where}), which does not declare "${last}"${near === undefined ? "" : `; did you mean "${near}"?`}`,
      );
    }
    if (parent.length === 0)
      return at(pos, path, `unknown top-level field "${last}"${unknownFieldAdvice([], last, raw)}`);
    if (parent.length === 1 && parent[0] === "resources") {
      return at(
        pos,
        path,
        `resources key "${last}" must have the form USER<digits> (${RESOURCES_KEY_PATTERN.source})`,
      );
    }
    if (parent.length === 1 && parent[0] === "sinks") {
      return at(pos, path, `sink name "${last}" must match ${SINK_KEY_PATTERN.source}`);
    }
    const holder = parent[parent.length - 1];
    if (holder === "labels")
      return at(pos, path, `label key "${last}" must match ${LABEL_KEY_PATTERN.source}`);
    if (holder === "vars") return at(pos, path, `vars key "${last}" must match ${VARS_KEY_PATTERN.source}`);
    return at(
      pos,
      path,
      `unknown field "${last}"${unknownFieldAdvice(parent, last, raw, e.closedBy?.definition)}`,
    );
  }
  if ((e.code === "incomplete" || /required/.test(e.message)) && locator.exact(path) === undefined) {
    if (parent.length === 0 || locator.exact(parent) !== undefined) {
      return at(
        parent.length === 0 ? { file: doc.file, line: 1, column: 1 } : locator.at(parent),
        path,
        `missing required field "${last}"`,
      );
    }
  }
  const hint = constraintHint(path, raw);
  const prefix = `${formatPath(e.path)}: `;
  const detail = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
  // A reference error is about the user's expression, not about what the field accepts.
  if (hint === undefined || /reference .* not found/.test(detail)) return at(pos, path, detail);
  // A pattern or non-empty bound says in regex what the hint says in words.
  if (VAGUE.test(detail) || /mismatched types|out of bound (=~|!="")/.test(detail)) {
    const value = rawValueText(raw, path);
    return at(pos, path, `${value === undefined ? "invalid value" : `invalid value ${value}`}; want ${hint}`);
  }
  return at(pos, path, `${detail}; want ${hint}`);
}
