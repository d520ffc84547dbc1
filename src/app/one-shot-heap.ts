import { setFlagsFromString } from "node:v8";

/**
 * V8 heap settings of the one-shot commands that evaluate a document (`lookout validate`,
 * `lookout cue`); the server keeps its own (v8-heap.ts).
 *
 * - `--no-allocation-site-pretenuring`: the evaluator first makes long-lived values (10,000 hosts,
 *   each given the template's conjuncts) and then, at the same allocation sites, short-lived ones
 *   (each host evaluated, checked and released in turn). V8 sees the first phase survive and from
 *   then on allocates those sites' objects straight into the old generation, where they die only
 *   at a full collection, and every minor collection meanwhile keeps alive (and promotes) the young
 *   objects they point to. Without pretenuring, one template mistake in 10,000 hosts
 *   (`npm run bench:cue:template-error`) peaks at ~112 MiB instead of ~170, with less CPU in the
 *   collector. V8 reads the setting at each allocation and collection, so setting it at run time,
 *   before the document is read, works.
 */
export const ONE_SHOT_V8_FLAGS: readonly string[] = ["--no-allocation-site-pretenuring"];

/** Applies {@link ONE_SHOT_V8_FLAGS} (process-wide, like every V8 flag). */
export function applyOneShotHeap(): void {
  for (const flag of ONE_SHOT_V8_FLAGS) setFlagsFromString(flag);
}
