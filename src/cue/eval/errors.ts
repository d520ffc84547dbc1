/**
 * Evaluation errors: the internal form carried by bottom values, the public {@link CueError}, and the
 * printer that formats them the way the `cue` command does.
 */

import type { Pos } from "../syntax/position.js";
import type { Vertex } from "./vertex.js";

/** Error classes, as `cue` distinguishes them. */
export type ErrCode =
  | "eval"
  | "incomplete"
  | "cycle"
  | "structural cycle"
  | "user"
  | "unsupported"
  | "syntax"
  | "limit";

/** An error carried by a bottom value. `path` is filled in when the error is attached to a field. */
export interface ErrInfo {
  readonly code: ErrCode;
  readonly message: string;
  positions: Pos[];
  path?: readonly string[];
  /** The errors of the alternatives of an empty disjunction. */
  sub?: readonly ErrInfo[];
  /** Made by `error("…")`: as a disjunct, its message replaces the other disjuncts' errors. */
  custom?: boolean;
  /**
   * The referenced field or element does not exist (yet): an undefined field of an open struct,
   * an unset optional field, an index past the end of an open list. `x?` of the try experiment
   * turns such an error into absence.
   */
  absent?: boolean;
  /** Made by `x?` for an absent x: the enclosing try clause produces nothing. */
  tryAbsent?: boolean;
  /** "field not allowed": the definition that closed the struct, when one did. */
  closedBy?: ClosedBy;
  /** A reference cycle: the field whose evaluation was in progress when it was read. */
  cycleAt?: Vertex;
}

/** The definition that closed a struct: its path and where the closed struct is declared in it. */
export interface ClosedBy {
  readonly definition: string;
  readonly positions: readonly Position[];
  /** The regular fields the closed struct has that are allowed there (for "did you mean"). */
  readonly allowed?: readonly string[];
}

/** A public position: 1-based line and column (UTF-16 code units). */
export interface Position {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** A public error. */
export interface CueError {
  readonly path: readonly string[];
  readonly code: ErrCode;
  readonly message: string;
  readonly positions: readonly Position[];
  /** Only on "field not allowed" in a struct a definition closed: that definition. */
  readonly closedBy?: ClosedBy;
}

export function toPosition(p: Pos): Position {
  return { file: p.file, line: p.line, column: p.column };
}

/** Sorts positions by file, then offset, dropping duplicates and synthetic ones. */
export function normalizePositions(ps: readonly Pos[]): Pos[] {
  // Most errors have one or two positions: no set, no sort (an error per host of a large fleet).
  if (ps.length <= 2) {
    const a = ps[0];
    const b = ps[1];
    const okA = a !== undefined && a.offset >= 0 && a.file !== "";
    const okB = b !== undefined && b.offset >= 0 && b.file !== "";
    if (!okB) return okA ? [a] : [];
    if (!okA) return [b];
    if (a.file === b.file && a.offset === b.offset) return [a];
    return a.file < b.file || (a.file === b.file && a.offset < b.offset) ? [a, b] : [b, a];
  }
  const seen = new Set<string>();
  const out: Pos[] = [];
  for (const p of ps) {
    if (p.offset < 0 || p.file === "") continue;
    const key = `${p.file}\0${p.offset}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.offset - b.offset));
  return out;
}

/** An error and, for an empty disjunction, each alternative's error after it (as `cue` prints). */
export function toCueErrors(e: ErrInfo, path: readonly string[]): CueError[] {
  const out = [toCueError(e, path)];
  for (const s of e.sub ?? []) out.push(...toCueErrors(s, s.path ?? path));
  return out;
}

export function toCueError(e: ErrInfo, path: readonly string[]): CueError {
  return {
    path: [...path],
    code: e.code,
    message: e.message,
    positions: normalizePositions(e.positions).map(toPosition),
    ...(e.closedBy === undefined ? {} : { closedBy: e.closedBy }),
  };
}

function relFile(file: string): string {
  if (file.startsWith("/") || file.startsWith("./") || file.startsWith("../")) return file;
  return `./${file}`;
}

/** Formats a path the way `cue` does: labels joined with `.`, list indices as numbers. */
export function formatPath(path: readonly string[]): string {
  return path.join(".");
}

/**
 * Errors printed the way `cue` prints them: `path: message:` followed by one line per position
 * (`    ./file.cue:9:18`). Messages without positions end without the colon.
 */
export function formatErrors(errors: readonly CueError[]): string {
  const lines: string[] = [];
  for (const e of errors) {
    const head = e.path.length > 0 ? `${formatPath(e.path)}: ${e.message}` : e.message;
    if (e.positions.length === 0) {
      lines.push(head);
      continue;
    }
    lines.push(`${head}:`);
    for (const p of e.positions) lines.push(`    ${relFile(p.file)}:${p.line}:${p.column}`);
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
