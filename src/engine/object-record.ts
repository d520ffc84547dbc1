import type { CheckConfig, HostConfig, ServiceConfig } from "../model/config.js";
import type { AcknowledgementInfo, ObjectEventBase, ObjectStatus } from "../model/events.js";
import type { ObjectState, StateType } from "../model/state.js";

/**
 * The engine's state for one host or service. One plain object of fixed shape per object (no Maps,
 * no closures), so 100,000 services stay well under the memory budget. Output and perfdata are not
 * kept: they travel in the CheckResultProcessed event and live in the projection.
 */
export interface ObjectRecord {
  readonly key: string;
  readonly host: string;
  readonly service: string | undefined;
  /** Position in config order: breaks ties between timers due at the same instant. */
  ord: number;
  hostConfig: HostConfig;
  serviceConfig: ServiceConfig | undefined;
  check: CheckConfig;
  /** A service's host record; undefined for hosts. */
  hostRecord: ObjectRecord | undefined;
  /** A host's parent host records (indexed at applyConfig); empty for services. */
  parents: readonly ObjectRecord[];
  /** A host's services by name, so a result finds its record without building a key. */
  services: Map<string, ObjectRecord> | undefined;

  state: ObjectState;
  stateType: StateType;
  attempt: number;
  lastCheck: number;
  lastStateChange: number;
  lastHardState: ObjectState;
  lastHardStateChange: number;
  /** The flap detector's value f in [0, 1]. */
  flap: number;
  flapping: boolean;
  reachable: boolean;
  ack: AcknowledgementInfo | null;
  /** How many downtimes on this object are active. */
  activeDowntimes: number;
  /** When the last result (of any source) was applied, or the object was added: freshness anchor. */
  lastReceived: number;
  /** When the last submitted (non-synthesized) result was applied, or the object was added. */
  lastSubmitted: number;
}

const NO_PARENTS: readonly ObjectRecord[] = Object.freeze([]);

/** A new record in PENDING, as a reload adds it at `at`. */
export function newRecord(
  key: string,
  hostConfig: HostConfig,
  serviceConfig: ServiceConfig | undefined,
  at: number,
): ObjectRecord {
  return {
    key,
    host: hostConfig.name,
    service: serviceConfig?.name,
    ord: 0,
    hostConfig,
    serviceConfig,
    check: serviceConfig === undefined ? hostConfig.check : serviceConfig.check,
    hostRecord: undefined,
    parents: NO_PARENTS,
    services: undefined,
    state: "PENDING",
    stateType: "HARD",
    attempt: 1,
    lastCheck: 0,
    lastStateChange: 0,
    lastHardState: "PENDING",
    lastHardStateChange: 0,
    flap: 0,
    flapping: false,
    reachable: true,
    ack: null,
    activeDowntimes: 0,
    lastReceived: at,
    lastSubmitted: at,
  };
}

/** Binds a kept or new record to the current config objects. */
export function bindRecord(
  rec: ObjectRecord,
  ord: number,
  hostConfig: HostConfig,
  serviceConfig: ServiceConfig | undefined,
): void {
  rec.ord = ord;
  rec.hostConfig = hostConfig;
  rec.serviceConfig = serviceConfig;
  rec.check = serviceConfig === undefined ? hostConfig.check : serviceConfig.check;
  rec.hostRecord = undefined;
  rec.parents = NO_PARENTS;
  rec.services = serviceConfig === undefined ? new Map() : undefined;
}

/** The object fields every object event starts with. */
export function eventBase(rec: ObjectRecord, at: number): ObjectEventBase {
  return rec.service === undefined
    ? { at, key: rec.key, host: rec.host }
    : { at, key: rec.key, host: rec.host, service: rec.service };
}

/** OK and UP: the states that are not problems (PENDING is neither). */
export function isOkState(s: ObjectState): boolean {
  return s === "OK" || s === "UP";
}

/** A problem state: anything but OK, UP and PENDING. */
export function isProblemState(s: ObjectState): boolean {
  return s !== "OK" && s !== "UP" && s !== "PENDING";
}

/** The record's status as events and queries show it. */
export function statusOf(rec: ObjectRecord): ObjectStatus {
  return {
    state: rec.state,
    stateType: rec.stateType,
    attempt: rec.attempt,
    maxAttempts: rec.check.maxAttempts,
    lastCheck: rec.lastCheck,
    lastStateChange: rec.lastStateChange,
    lastHardState: rec.lastHardState,
    lastHardStateChange: rec.lastHardStateChange,
    flapping: rec.flapping,
    flapPercent: rec.flap * 100,
    acknowledgement: rec.ack,
    inDowntime: rec.activeDowntimes > 0,
    reachable: rec.reachable,
  };
}
