import type { MessageInitShape } from "@bufbuild/protobuf";
import type { TimestampSchema } from "@bufbuild/protobuf/wkt";
import type { StateType as ModelStateType, ObjectState } from "../model/state.js";
import type { ObjectEntry } from "../store/object-index.js";
import type { StatusRecord } from "../store/records.js";
import type { ObjectStatusSchema } from "./gen/svc/v1/query_service_pb.js";
import { type PerfDatumSchema, State, StateType } from "./gen/svc/v1/types_pb.js";

/**
 * ObjectStatus as a message built field by field, for the JSON wire format (the binary formats
 * splice encoded records, src/api/status-page.ts; the two are pinned equal by its test).
 */

/** A Timestamp init (not a message: create() builds the message once, in the response). */
export function ts(ms: number | undefined): MessageInitShape<typeof TimestampSchema> | undefined {
  if (ms === undefined) return undefined;
  const seconds = Math.floor(ms / 1000);
  return { seconds: BigInt(seconds), nanos: (ms - seconds * 1000) * 1_000_000 };
}

/**
 * One row of ListStatus. Built as one fixed-shape literal (no spreads): a page is a thousand of
 * these, and it is the hot path of every dashboard refresh.
 */
export function objectStatus(
  entry: ObjectEntry,
  s: StatusRecord | undefined,
): MessageInitShape<typeof ObjectStatusSchema> {
  const check = (entry.service ?? entry.host).check;
  if (s === undefined) {
    return {
      host: entry.host.name,
      service: entry.service?.name,
      state: State.PENDING,
      stateType: StateType.HARD,
      attempt: 1,
      maxAttempts: check.maxAttempts,
      checkType: check.type,
      labels: entry.labels,
    };
  }
  const ack = s.acknowledgement;
  return {
    host: entry.host.name,
    service: entry.service?.name,
    state: stateOf(s.state),
    stateType: stateTypeOf(s.stateType),
    attempt: s.attempt,
    maxAttempts: s.maxAttempts,
    output: s.output,
    longOutput: s.longOutput,
    // The model's PerfDatum has the message's fields, name for name; create() copies it.
    perfdata: s.perfdata as MessageInitShape<typeof PerfDatumSchema>[],
    lastCheck: ts(s.lastCheck),
    lastStateChange: ts(s.lastStateChange),
    lastHardStateChange: ts(s.lastHardStateChange),
    flapping: s.flapping,
    flapPercent: s.flapPercent,
    acknowledgement:
      ack === undefined
        ? undefined
        : { author: ack.author, comment: ack.comment, sticky: ack.sticky, setAt: ts(ack.setAt) },
    inDowntime: s.inDowntime,
    checkType: check.type,
    labels: entry.labels,
    checkedBy: s.checkedBy ?? "",
    activeChecksDisabled: s.activeChecksDisabled === true,
    passiveChecksDisabled: s.passiveChecksDisabled === true,
    notificationsDisabled: s.notificationsDisabled === true,
    flapDetectionDisabled: s.flapDetectionDisabled === true,
  };
}

/** The API's State for a model state. */
export function stateOf(s: ObjectState): State {
  switch (s) {
    case "PENDING":
      return State.PENDING;
    case "OK":
      return State.OK;
    case "WARNING":
      return State.WARNING;
    case "CRITICAL":
      return State.CRITICAL;
    case "UNKNOWN":
      return State.UNKNOWN;
    case "UP":
      return State.UP;
    case "DOWN":
      return State.DOWN;
    case "UNREACHABLE":
      return State.UNREACHABLE;
    default: {
      const never: never = s;
      throw new Error(`unknown state ${String(never)}`);
    }
  }
}

/** The API's StateType for a model state type. */
export function stateTypeOf(t: ModelStateType): StateType {
  switch (t) {
    case "SOFT":
      return StateType.SOFT;
    case "HARD":
      return StateType.HARD;
    default: {
      const never: never = t;
      throw new Error(`unknown state type ${String(never)}`);
    }
  }
}
