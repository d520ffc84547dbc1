/**
 * Per-file language experiments (`@experiment(explicitopen)` before the package clause). An
 * experiment changes the meaning of the code written in that file only, so the evaluator asks
 * through the lexical frame of an expression, whose outermost frame is its file's.
 */

import type * as ast from "../syntax/ast.js";
import type { Frame } from "./vertex.js";

/**
 * The experiments this engine implements (of `aliasv2`, only `self` so far; `testing` only makes
 * cue's `__test_experiment(x)` give `x`).
 */
export type Experiment = "explicitopen" | "aliasv2" | "testing";

const explicitOpenFiles = new WeakSet<Frame>();
const aliasV2Files = new WeakSet<Frame>();
const testingFiles = new WeakSet<Frame>();
/** No frame walks on hot paths until some file has used the experiment. */
let anyExplicitOpen = false;
let anyAliasV2 = false;

/** The experiments a file enables, and the names it asks for that are unknown here. */
export function fileExperiments(file: ast.File): { enabled: Experiment[]; unknown: string[] } {
  const enabled: Experiment[] = [];
  const unknown: string[] = [];
  for (const a of [...file.fileAttributes, ...file.decls]) {
    if (a.kind !== "Attribute" || a.name !== "experiment") continue;
    for (const raw of a.body.split(",")) {
      const name = raw.trim();
      if (name === "") continue;
      if (name === "explicitopen" || name === "aliasv2" || name === "testing") enabled.push(name);
      else unknown.push(name);
    }
  }
  return { enabled, unknown };
}

/** Records the experiments enabled by the file whose top frame is `frame`. */
export function markExperiments(frame: Frame, enabled: readonly Experiment[]): void {
  for (const e of enabled) {
    switch (e) {
      case "explicitopen":
        explicitOpenFiles.add(frame);
        anyExplicitOpen = true;
        break;
      case "aliasv2":
        aliasV2Files.add(frame);
        anyAliasV2 = true;
        break;
      case "testing":
        testingFiles.add(frame);
        break;
      default: {
        const never: never = e;
        throw new Error(`unknown experiment ${String(never)}`);
      }
    }
  }
}

function topFrame(env: Frame): Frame {
  let f = env;
  while (f.up !== undefined) f = f.up;
  return f;
}

/**
 * The vertex `self` denotes in `env` (aliasv2): the innermost enclosing block — struct literal or
 * file — or undefined when the file does not enable the experiment.
 */
export function selfVertex(env: Frame): Frame["vertex"] | undefined {
  if (!usesAliasV2(env)) return undefined;
  for (let f: Frame | undefined = env; f !== undefined; f = f.up) {
    if (f.lit !== undefined || f.list === true || f.up === undefined) return f.vertex;
  }
  return undefined;
}

/** Whether the code evaluated in `env` was written in an `aliasv2` file. */
export function usesAliasV2(env: Frame): boolean {
  return anyAliasV2 && aliasV2Files.has(topFrame(env));
}

/**
 * Whether the code evaluated in `env` was written in an `explicitopen` file: there, embedding a
 * closed value closes the embedding struct too (embedding is unification) and `x...` opens `x`.
 */
export function isExplicitOpen(env: Frame): boolean {
  if (!anyExplicitOpen) return false;
  return explicitOpenFiles.has(topFrame(env));
}

/** Whether the code evaluated in `env` was written in a file with `@experiment(testing)`. */
export function usesTesting(env: Frame): boolean {
  return testingFiles.has(topFrame(env));
}
