/**
 * Silent wrong answers: a failed assertion where the engine reported no error on the asserted path
 * (at it, above it or below it). CUE errors and the engine gives a value, or both give a value and
 * they differ: the user would see exit 0 and a configuration that is not what they wrote. The
 * runner counts these apart from other failures (a wrong message or position still reports an
 * error, and is only a failure).
 */

import type { Engine, EngineError, EngineValue } from "./engine.js";

/** Whether the engine reports any error related to `path` (an ancestor, the path, or below it). */
export function engineErrsAt(root: EngineValue, path: readonly string[], engine?: Engine): boolean {
  try {
    return errsAt(root, path, engine);
  } catch {
    // An engine that throws while looking is not silent.
    return true;
  }
}

function errsAt(root: EngineValue, path: readonly string[], engine: Engine | undefined): boolean {
  const related = (e: EngineError): boolean => {
    const n = Math.min(e.path.length, path.length);
    for (let i = 0; i < n; i++) if (e.path[i] !== path[i]) return false;
    return true;
  };
  if (root.errors.some(related)) return true;
  // The nearest value that exists: a missing field is judged by its parent.
  for (let k = path.length; k >= 0; k--) {
    const v = root.lookup(path.slice(0, k));
    if (v === undefined) continue;
    if (v.errors.length > 0) return true;
    if (v.validate({ concrete: false }).length > 0) return true;
    const x = v.export();
    if (!x.ok && x.errors.some((e) => e.code !== "incomplete")) return true;
    // An incomplete error is an error only where the value is one (`_|_` in its rendering, also
    // in definitions, which export leaves out), not where it is merely not concrete (`int`).
    if (engine?.describe?.(v).includes("_|_")) return true;
    return false;
  }
  return false;
}
