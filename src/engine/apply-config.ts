import type { EngineEvent } from "../model/events.js";
import { renumberComments } from "./comments.js";
import type { CompiledConfig } from "./compiled-config.js";
import { renumberDowntimes } from "./downtimes.js";
import type { EngineState } from "./engine-state.js";
import { checkOf, eventBase, indexConfig, isProblemState, stateOf } from "./object-table.js";
import { rebuildTimers } from "./timers.js";

/**
 * Swaps the running config. Emits ObjectRemoved (after DowntimeDeleted and CommentDeleted) per
 * removed object, ObjectAdded per new one, FlappingStop where a reload turned flap detection off
 * on a flapping object, then one ConfigApplied.
 */
export function applyConfig(
  st: EngineState,
  config: CompiledConfig,
  at: number,
  digest: string,
  out: EngineEvent[],
): void {
  const old = st.objects;
  const { table: t, added, moved, hosts, services } = indexConfig(config, old, at);
  let removed = 0;
  for (let i = 0; i < old.size; i++) if (moved[i] === -1) removed++;

  if (removed > 0) renumberDowntimes(st, old, moved, at, out);
  else for (const dt of st.downtimes.values()) dt.objects = dt.objects.map((i) => moved[i] as number);
  renumberComments(st, old, moved, at, out);
  for (let i = 0; i < old.size; i++) {
    if (moved[i] === -1) out.push({ type: "ObjectRemoved", ...eventBase(old, i, at) });
  }
  for (const i of added) out.push({ type: "ObjectAdded", ...eventBase(t, i, at) });
  for (let i = 0; i < t.size; i++) {
    // A changed max_attempts re-scales the counter: hard problems show max/max, soft ones stay
    // below or at the new max (and go hard on their next problem result).
    const check = checkOf(t, i);
    const max = check.maxAttempts;
    if (t.stateType[i] === 0 && isProblemState(stateOf(t, i))) t.attempt[i] = max;
    else if ((t.attempt[i] as number) > max) t.attempt[i] = max;
    if (t.flapping[i] === 1 && !check.flap.enabled) {
      t.flapping[i] = 0;
      out.push({
        type: "FlappingStop",
        ...eventBase(t, i, at),
        percent: (t.flap[i] as number) * 100,
        lowThreshold: check.flap.lowThreshold,
        reason: "disabled",
        notifyProblem: false,
      });
    }
  }

  st.digest = digest;
  st.objects = t;
  st.hosts = hosts;
  st.services = services;
  rebuildTimers(st);
  out.push({
    type: "ConfigApplied",
    at,
    digest: st.digest,
    hosts,
    services,
    added: added.length,
    removed,
  });
}
