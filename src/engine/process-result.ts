import type { CheckResult } from "../model/check-result.js";
import type { EngineEvent } from "../model/events.js";
import { hostStateOf, type ObjectState, type StateType, serviceStateOf } from "../model/state.js";
import { eventBase, isOkState, type ObjectRecord, statusOf } from "./object-record.js";

/**
 * The state a result stands for, and whether the object is reachable. A DOWN host whose parents
 * are all DOWN or UNREACHABLE is UNREACHABLE (a host without parents never is). A service is
 * unreachable while its host is not UP (PENDING counts as UP: nothing says otherwise yet).
 */
function resultState(rec: ObjectRecord, result: CheckResult): ObjectState {
  if (rec.service !== undefined) return serviceStateOf(result.exitStatus);
  const s = hostStateOf(result.exitStatus);
  if (s === "UP" || rec.parents.length === 0) return s;
  for (const p of rec.parents) if (p.state !== "DOWN" && p.state !== "UNREACHABLE") return s;
  return "UNREACHABLE";
}

/** Whether a problem in `state` is explained by something above the object. */
function isReachable(rec: ObjectRecord, state: ObjectState): boolean {
  if (rec.service === undefined) return state !== "UNREACHABLE";
  const hostState = rec.hostRecord?.state ?? "PENDING";
  return hostState === "UP" || hostState === "PENDING";
}

/**
 * Applies one result to one object: soft/hard state, attempts, flap detection, acknowledgement
 * clearing (docs/states.md has the rules). Appends the events it causes to `out`: first
 * CheckResultProcessed (with the final status), then StateChange, AcknowledgementRemoved and
 * FlappingStart/FlappingStop as they apply. O(1), O(parents) for a host that is DOWN.
 */
export function processResult(
  rec: ObjectRecord,
  result: CheckResult,
  at: number,
  synthesized: boolean,
  out: EngineEvent[],
): void {
  const check = rec.check;
  const max = check.maxAttempts;
  const state = resultState(rec, result);
  const reachable = isReachable(rec, state);
  const oldState = rec.state;
  const oldType = rec.stateType;
  const oldAttempt = rec.attempt;
  const fromHardState = rec.lastHardState;
  const ok = isOkState(state);
  // Only services skip their retries: a service on a host that is not UP is hard at once.
  const hardNow = rec.service !== undefined && !reachable;
  const wasProblem = !isOkState(oldState) && oldState !== "PENDING";

  let type: StateType;
  let attempt: number;
  if (ok) {
    // OK and UP are always hard; the attempt counter starts over.
    type = "HARD";
    attempt = 1;
  } else if (!wasProblem) {
    // The first problem result: SOFT 1/max, unless one attempt is all there is or the object is
    // a service whose host is not UP (Nagios takes the problem as hard at once).
    type = max <= 1 || hardNow ? "HARD" : "SOFT";
    attempt = type === "HARD" ? max : 1;
  } else if (oldType === "SOFT") {
    attempt = oldAttempt + 1;
    type = attempt >= max || hardNow ? "HARD" : "SOFT";
    if (type === "HARD") attempt = max;
  } else {
    // Already a hard problem: another problem state is a hard change, the same one is not.
    type = "HARD";
    attempt = max;
  }

  const stateChanged = state !== oldState;
  const hardChange = type === "HARD" && state !== fromHardState;
  const t = result.checkedAt;

  rec.state = state;
  rec.stateType = type;
  rec.attempt = attempt;
  rec.reachable = reachable;
  rec.lastCheck = t;
  rec.lastReceived = at;
  if (!synthesized) rec.lastSubmitted = at;
  if (stateChanged) rec.lastStateChange = t;
  if (hardChange) {
    rec.lastHardState = state;
    rec.lastHardStateChange = t;
  }

  // Flap detection (#Flap): x = 1 on a state change, else 0; f = alpha*x + (1-alpha)*f. The first
  // result after PENDING is not a change. f is tracked even while detection is disabled.
  const flap = check.flap;
  const x = stateChanged && oldState !== "PENDING" ? 1 : 0;
  rec.flap = flap.alpha * x + (1 - flap.alpha) * rec.flap;
  let flapEvent: EngineEvent | undefined;
  if (flap.enabled) {
    if (!rec.flapping && rec.flap > flap.highThreshold) {
      rec.flapping = true;
      flapEvent = {
        type: "FlappingStart",
        ...eventBase(rec, at),
        percent: rec.flap * 100,
        highThreshold: flap.highThreshold,
      };
    } else if (rec.flapping && rec.flap < flap.lowThreshold) {
      rec.flapping = false;
      flapEvent = {
        type: "FlappingStop",
        ...eventBase(rec, at),
        percent: rec.flap * 100,
        lowThreshold: flap.lowThreshold,
        reason: "threshold",
        notifyProblem: flap.notifyOnFlapStop && !ok && type === "HARD",
      };
    }
  }

  // Acknowledgements: any recovery clears them; a state change clears a non-sticky one.
  let ackReason: "recovery" | "state-change" | undefined;
  if (rec.ack !== null) {
    if (ok) ackReason = "recovery";
    else if (stateChanged && !rec.ack.sticky) ackReason = "state-change";
    if (ackReason !== undefined) rec.ack = null;
  }

  // Literal events (no spread) on the hot path; hosts have no `service` key at all, so that the
  // event survives a JSON round trip unchanged.
  const status = statusOf(rec);
  out.push(
    rec.service === undefined
      ? { type: "CheckResultProcessed", at, key: rec.key, host: rec.host, result, status }
      : {
          type: "CheckResultProcessed",
          at,
          key: rec.key,
          host: rec.host,
          service: rec.service,
          result,
          status,
        },
  );
  if (stateChanged || hardChange) {
    const softRecovery = ok && wasProblem && oldType === "SOFT";
    out.push({
      type: "StateChange",
      ...eventBase(rec, at),
      from: oldState,
      to: state,
      stateType: softRecovery ? "SOFT" : type,
      attempt: softRecovery ? oldAttempt : attempt,
      maxAttempts: max,
      hardChange,
      fromHardState,
      reachable,
      output: result.output,
    });
  }
  if (ackReason !== undefined) {
    out.push({ type: "AcknowledgementRemoved", ...eventBase(rec, at), reason: ackReason });
  }
  if (flapEvent !== undefined) out.push(flapEvent);
}
