import type { Target } from "../model/commands.js";
import { objectKey } from "../model/object-ref.js";
import { effectiveLabels, parseSelector } from "../model/selector.js";
import type { EngineState } from "./engine-state.js";
import { isService, labelsOf, lookup } from "./object-table.js";

/** What a target resolved to: the object numbers, or why there are none. */
export type Resolved =
  | { readonly ok: true; readonly records: number[]; readonly bySelector: boolean }
  | { readonly ok: false; readonly reason: string; readonly key?: string };

/**
 * Resolves a command target against the current objects. A selector sees a host's labels, and for
 * a service its host's labels overlaid by its own (src/model/selector.ts). Selector targets scan
 * every object; that is fine for operator commands, which are rare next to results.
 */
export function resolveTarget(st: EngineState, target: Target): Resolved {
  if ("object" in target) {
    const i = lookup(st.objects, target.object.host, target.object.service);
    if (i === undefined) {
      const key = objectKey(target.object);
      return { ok: false, reason: `unknown object ${key}`, key };
    }
    return { ok: true, records: [i], bySelector: false };
  }
  const parsed = parseSelector(target.selector);
  if (!parsed.ok) {
    return { ok: false, reason: `bad selector at column ${parsed.column}: ${parsed.message}` };
  }
  const records: number[] = [];
  const t = st.objects;
  for (let i = 0; i < t.size; i++) {
    const own = { labels: labelsOf(t, i) };
    const labels = isService(t, i)
      ? effectiveLabels({ labels: labelsOf(t, t.hostOf[i] as number) }, own)
      : effectiveLabels(own);
    if (parsed.selector.matches(labels)) records.push(i);
  }
  if (records.length === 0) return { ok: false, reason: `selector "${target.selector}" matches no object` };
  return { ok: true, records, bySelector: true };
}
