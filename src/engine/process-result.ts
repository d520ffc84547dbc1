import type { CheckResult } from "../model/check-result.js";
import type { EngineEvent } from "../model/events.js";
import { hostStateOf, type ObjectState, type StateType, serviceStateOf } from "../model/state.js";
import {
  checkOf,
  eventBase,
  hostNameOf,
  isOkState,
  isService,
  isSwitchedOff,
  type ObjectTable,
  serviceNameOf,
  stateCode,
  stateName,
  stateTypeName,
  statusOf,
} from "./object-table.js";

const DOWN = stateCode("DOWN");
const UNREACHABLE = stateCode("UNREACHABLE");
const UP = stateCode("UP");
const PENDING = stateCode("PENDING");

/**
 * The state a result stands for, and whether the object is reachable. A DOWN host whose parents
 * are all DOWN or UNREACHABLE is UNREACHABLE (a host without parents never is). A service is
 * unreachable while its host is not UP (PENDING counts as UP: nothing says otherwise yet).
 */
function resultState(t: ObjectTable, i: number, result: CheckResult): ObjectState {
  if (isService(t, i)) return serviceStateOf(result.exitStatus);
  const s = hostStateOf(result.exitStatus);
  const parents = t.config.parents.get(i);
  if (s === "UP" || parents === undefined || parents.length === 0) return s;
  for (const p of parents) {
    const ps = t.state[p] as number;
    if (ps !== DOWN && ps !== UNREACHABLE) return s;
  }
  return "UNREACHABLE";
}

/** Whether a problem in `state` is explained by something above the object. */
function isReachable(t: ObjectTable, i: number, state: ObjectState): boolean {
  if (!isService(t, i)) return state !== "UNREACHABLE";
  const hostState = t.state[t.hostOf[i] as number] as number;
  return hostState === UP || hostState === PENDING;
}

/**
 * Applies one result to object i: soft/hard state, attempts, flap detection, acknowledgement
 * clearing (docs/states.md has the rules). Appends the events it causes to `out`: first
 * CheckResultProcessed (with the final status), then StateChange, AcknowledgementRemoved and
 * FlappingStart/FlappingStop as they apply. O(1), O(parents) for a host that is DOWN.
 */
export function processResult(
  t: ObjectTable,
  i: number,
  result: CheckResult,
  at: number,
  synthesized: boolean,
  out: EngineEvent[],
): void {
  const check = checkOf(t, i);
  const max = check.maxAttempts;
  const state = resultState(t, i, result);
  const reachable = isReachable(t, i, state);
  const oldState = stateName(t.state[i] as number);
  const oldType = stateTypeName(t.stateType[i] as number);
  const oldAttempt = t.attempt[i] as number;
  const fromHardState = stateName(t.lastHardState[i] as number);
  const ok = isOkState(state);
  const service = serviceNameOf(t, i);
  // Only services skip their retries: a service on a host that is not UP is hard at once.
  const hardNow = service !== undefined && !reachable;
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
  const time = result.checkedAt;

  t.state[i] = stateCode(state);
  t.stateType[i] = type === "HARD" ? 0 : 1;
  t.attempt[i] = attempt;
  t.reachable[i] = reachable ? 1 : 0;
  t.lastCheck[i] = time;
  t.lastReceived[i] = at;
  if (!synthesized) t.lastSubmitted[i] = at;
  if (stateChanged) t.lastStateChange[i] = time;
  if (hardChange) {
    t.lastHardState[i] = stateCode(state);
    t.lastHardStateChange[i] = time;
  }

  // Flap detection (#Flap): x = 1 on a state change, else 0; f = alpha*x + (1-alpha)*f. The first
  // result after PENDING is not a change. f is tracked even while detection is disabled.
  const flap = check.flap;
  const x = stateChanged && oldState !== "PENDING" ? 1 : 0;
  const f = flap.alpha * x + (1 - flap.alpha) * (t.flap[i] as number);
  t.flap[i] = f;
  let flapEvent: EngineEvent | undefined;
  // An operator who turned flap detection off (SetObjectFlags) stopped the detector as a config
  // with flapping disabled does: f is tracked, flapping neither starts nor stops.
  if (flap.enabled && !isSwitchedOff(t, i, "flapDetection")) {
    const flapping = t.flapping[i] === 1;
    if (!flapping && f > flap.highThreshold) {
      t.flapping[i] = 1;
      flapEvent = {
        type: "FlappingStart",
        ...eventBase(t, i, at),
        percent: f * 100,
        highThreshold: flap.highThreshold,
      };
    } else if (flapping && f < flap.lowThreshold) {
      t.flapping[i] = 0;
      flapEvent = {
        type: "FlappingStop",
        ...eventBase(t, i, at),
        percent: f * 100,
        lowThreshold: flap.lowThreshold,
        reason: "threshold",
        notifyProblem: flap.notifyOnFlapStop && !ok && type === "HARD",
      };
    }
  }

  // Acknowledgements: any recovery clears them; a state change clears a non-sticky one.
  let ackReason: "recovery" | "state-change" | undefined;
  const ack = t.acks.get(i);
  if (ack !== undefined) {
    if (ok) ackReason = "recovery";
    else if (stateChanged && !ack.sticky) ackReason = "state-change";
    if (ackReason !== undefined) t.acks.delete(i);
  }

  // Literal events (no spread) on the hot path; hosts have no `service` key at all, so that the
  // event survives a JSON round trip unchanged.
  const status = statusOf(t, i);
  const host = hostNameOf(t, i);
  const key = service === undefined ? host : `${host}!${service}`;
  out.push(
    service === undefined
      ? { type: "CheckResultProcessed", at, key, host, result, status }
      : { type: "CheckResultProcessed", at, key, host, service, result, status },
  );
  if (stateChanged || hardChange) {
    const softRecovery = ok && wasProblem && oldType === "SOFT";
    out.push({
      type: "StateChange",
      ...eventBase(t, i, at),
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
    out.push({ type: "AcknowledgementRemoved", ...eventBase(t, i, at), reason: ackReason });
  }
  if (flapEvent !== undefined) out.push(flapEvent);
}
