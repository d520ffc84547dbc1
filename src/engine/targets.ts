import type { Target } from "../model/commands.js";
import { objectKey } from "../model/object-ref.js";
import { effectiveLabels, parseSelector } from "../model/selector.js";
import type { EngineState } from "./engine-state.js";
import type { ObjectRecord } from "./object-record.js";

/** What a target resolved to: the objects, or why there are none. */
export type Resolved =
  | { readonly ok: true; readonly records: ObjectRecord[]; readonly bySelector: boolean }
  | { readonly ok: false; readonly reason: string; readonly key?: string };

/**
 * Resolves a command target against the current objects. A selector sees a host's labels, and for
 * a service its host's labels overlaid by its own (src/model/selector.ts). Selector targets scan
 * every object; that is fine for operator commands, which are rare next to results.
 */
export function resolveTarget(st: EngineState, target: Target): Resolved {
  if ("object" in target) {
    const key = objectKey(target.object);
    const rec = st.objects.get(key);
    return rec === undefined
      ? { ok: false, reason: `unknown object ${key}`, key }
      : { ok: true, records: [rec], bySelector: false };
  }
  const parsed = parseSelector(target.selector);
  if (!parsed.ok) {
    return { ok: false, reason: `bad selector at column ${parsed.column}: ${parsed.message}` };
  }
  const records: ObjectRecord[] = [];
  for (const rec of st.objects.values()) {
    if (parsed.selector.matches(effectiveLabels(rec.hostConfig, rec.serviceConfig))) records.push(rec);
  }
  if (records.length === 0) return { ok: false, reason: `selector "${target.selector}" matches no object` };
  return { ok: true, records, bySelector: true };
}
