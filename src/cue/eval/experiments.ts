/**
 * Per-file language experiments (`@experiment(explicitopen)` before the package clause). An
 * experiment changes the meaning of the code written in that file only, so the evaluator asks
 * through the lexical frame of an expression, whose outermost frame is its file's.
 */

import type * as ast from "../syntax/ast.js";
import type { Frame } from "./vertex.js";

/** The experiments this engine implements. */
export type Experiment = "explicitopen";

const explicitOpenFiles = new WeakSet<Frame>();
/** No frame walks on hot paths until some file has used the experiment. */
let anyExplicitOpen = false;

/** The experiments a file enables, and the names it asks for that are unknown here. */
export function fileExperiments(file: ast.File): { enabled: Experiment[]; unknown: string[] } {
  const enabled: Experiment[] = [];
  const unknown: string[] = [];
  for (const a of [...file.fileAttributes, ...file.decls]) {
    if (a.kind !== "Attribute" || a.name !== "experiment") continue;
    for (const raw of a.body.split(",")) {
      const name = raw.trim();
      if (name === "") continue;
      if (name === "explicitopen") enabled.push(name);
      else unknown.push(name);
    }
  }
  return { enabled, unknown };
}

/** Records that the code of the file whose top frame is `frame` uses `explicitopen`. */
export function markExplicitOpen(frame: Frame): void {
  explicitOpenFiles.add(frame);
  anyExplicitOpen = true;
}

/**
 * Whether the code evaluated in `env` was written in an `explicitopen` file: there, embedding a
 * closed value closes the embedding struct too (embedding is unification) and `x...` opens `x`.
 */
export function isExplicitOpen(env: Frame): boolean {
  if (!anyExplicitOpen) return false;
  let f = env;
  while (f.up !== undefined) f = f.up;
  return explicitOpenFiles.has(f);
}
