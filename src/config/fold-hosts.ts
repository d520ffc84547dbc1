import type { CueError } from "../cue/index.js";
import { formatPath } from "./diagnostic.js";

/** The engine's errors with the hosts that repeat another host's errors taken out. */
export interface FoldedErrors {
  /** The errors of every other host and of everything outside `hosts`. */
  readonly errors: readonly CueError[];
  /** For a host that stands for others: the names of the hosts whose errors are the same as its. */
  readonly folded: ReadonlyMap<string, readonly string[]>;
}

/**
 * One mistake in a template that 10,000 hosts use is 10,000 hosts with the same errors: the same
 * paths below the host, codes, messages and source positions, at least one of them in the user's
 * file (the template). The diagnostics of such a host are worked out for the first one only (its
 * part of the user's document exported, its check re-checked against its branch, its messages
 * translated), and the others are counted in (instances.ts): the work is that of one host, not of
 * 10,000. A host with anything of its own besides (a typo in its own labels) has other errors, so
 * it is not folded and its own problems are reported as always.
 */
export function foldHosts(errors: readonly CueError[], file: string): FoldedErrors {
  // The loader asks twice for the same list (own-errors.ts, then cue-diagnostics.ts).
  const known = folds.get(errors);
  if (known !== undefined && known.file === file) return known.result;
  const result = foldHostsOnce(errors, file);
  folds.set(errors, { file, result });
  return result;
}

/** The lists already folded (the engine's, never modified), while they live. */
const folds = new WeakMap<readonly CueError[], { file: string; result: FoldedErrors }>();

function foldHostsOnce(errors: readonly CueError[], file: string): FoldedErrors {
  const byHost = new Map<string, CueError[]>();
  for (const e of errors) {
    if (e.path[0] !== "hosts" || e.path.length < 2) continue;
    const host = e.path[1] as string;
    let list = byHost.get(host);
    if (list === undefined) {
      list = [];
      byHost.set(host, list);
    }
    list.push(e);
  }
  if (byHost.size < 2) return { errors, folded: new Map() };
  const first = new Map<string, string>();
  const folded = new Map<string, string[]>();
  const kept = new Set<string>();
  // The last host whose signature was made: a template's instances come with their errors in the
  // same order, so most hosts are compared with it, without making their own.
  let last: { list: readonly CueError[]; sig: string | undefined } | undefined;
  for (const [host, list] of byHost) {
    let sig: string | undefined;
    if (last !== undefined && sameInOrder(last.list, list)) sig = last.sig;
    else {
      sig = signature(list, file);
      last = { list, sig };
    }
    const rep = sig === undefined ? undefined : first.get(sig);
    if (sig === undefined || rep === undefined) {
      if (sig !== undefined) first.set(sig, host);
      kept.add(host);
      continue;
    }
    let others = folded.get(rep);
    if (others === undefined) {
      others = [];
      folded.set(rep, others);
    }
    others.push(host);
  }
  if (folded.size === 0) return { errors, folded };
  // In the engine's order (the walk's), which the diagnostics' "first" host follows.
  const out = errors.filter(
    (e) => e.path[0] !== "hosts" || e.path.length < 2 || kept.has(e.path[1] as string),
  );
  return { errors: out, folded };
}

/**
 * A host's errors relative to the host, as one string; undefined when none of them has a position
 * in the user's file (nothing says they come from a template the user wrote once).
 */
function signature(list: readonly CueError[], file: string): string | undefined {
  let user = false;
  const parts: string[] = [];
  for (const e of list) {
    const rel = e.path.slice(2);
    let pos = "";
    for (const p of e.positions) {
      if (p.file === file) user = true;
      pos += `${p.file}:${p.line}:${p.column},`;
    }
    // The message without the path it may start with (which names the host).
    const prefix = `${formatPath(e.path)}: `;
    const message = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
    parts.push(`${rel.join("\0")}|${e.code}|${message}|${pos}|${e.closedBy?.definition ?? ""}`);
  }
  if (!user) return undefined;
  return parts.sort().join("\n");
}

/**
 * Whether two hosts' errors (each below its own host) are the same in the same order: then their
 * signatures are too. Messages that start with a path are left to the signature, which takes the
 * path out.
 */
function sameInOrder(a: readonly CueError[], b: readonly CueError[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as CueError;
    const y = b[i] as CueError;
    if (x.code !== y.code || x.message !== y.message || x.message.startsWith("hosts.")) return false;
    if (x.closedBy?.definition !== y.closedBy?.definition) return false;
    if (x.path.length !== y.path.length) return false;
    for (let j = 2; j < x.path.length; j++) if (x.path[j] !== y.path[j]) return false;
    if (x.positions.length !== y.positions.length) return false;
    for (let j = 0; j < x.positions.length; j++) {
      const p = x.positions[j] as CueError["positions"][number];
      const q = y.positions[j] as CueError["positions"][number];
      if (p.file !== q.file || p.line !== q.line || p.column !== q.column) return false;
    }
  }
  return true;
}
