import type { SetObjectFlagsCommand } from "../model/commands.js";
import type { EngineEvent } from "../model/events.js";
import { applyFlagsChange, flagsOf, switchBit } from "../model/object-flags.js";
import { keyOf } from "./acknowledgements.js";
import type { EngineState } from "./engine-state.js";
import { checkOf, eventBase } from "./object-table.js";
import { resolveTarget } from "./targets.js";

/**
 * Sets the run-time switches of the targeted objects (docs/states.md, "Run-time switches"): one
 * ObjectFlagsChanged per object whose switches changed, none for an object already as asked (so
 * a repeated command, or a selector over objects already switched, changes nothing). Turning flap
 * detection off stops an object that is flapping, with FlappingStop reason `disabled`, as a reload
 * that turns it off does. A target that resolves to nothing is rejected.
 */
export function setObjectFlags(st: EngineState, cmd: SetObjectFlagsCommand, out: EngineEvent[]): void {
  const at = cmd.at;
  const r = resolveTarget(st, cmd.target);
  if (!r.ok) {
    out.push({ type: "CommandRejected", at, command: cmd.type, reason: r.reason, ...keyOf(r.key) });
    return;
  }
  const t = st.objects;
  const flapOff = switchBit("flapDetection");
  for (const i of r.records) {
    const before = t.disabled[i] as number;
    const after = applyFlagsChange(before, cmd.flags);
    if (after === before) continue;
    t.disabled[i] = after;
    out.push({
      type: "ObjectFlagsChanged",
      ...eventBase(t, i, at),
      flags: flagsOf(after),
      author: cmd.author,
    });
    if ((after & flapOff) !== 0 && t.flapping[i] === 1) {
      t.flapping[i] = 0;
      out.push({
        type: "FlappingStop",
        ...eventBase(t, i, at),
        percent: (t.flap[i] as number) * 100,
        lowThreshold: checkOf(t, i).flap.lowThreshold,
        reason: "disabled",
        notifyProblem: false,
      });
    }
  }
}
