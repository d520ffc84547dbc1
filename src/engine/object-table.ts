import type { CheckConfig, Labels } from "../model/config.js";
import type { AcknowledgementInfo, ObjectEventBase, ObjectStatus } from "../model/events.js";
import { disabledFields, type ObjectSwitch, switchBit } from "../model/object-flags.js";
import type { ObjectState, StateType } from "../model/state.js";
import { type CompiledConfig, EMPTY_COMPILED_CONFIG, lookupObject } from "./compiled-config.js";

/**
 * The engine's state of every host and service, as a struct of arrays indexed by object number
 * (config order: each host followed by its services). At 100,000 services one JS object per service
 * cost ~460 bytes (27 fields, six boxed doubles, a Map entry); here it is a few typed-array slots.
 * Names, checks and labels are the compiled config's (src/engine/compiled-config.ts); keys are made
 * when an event needs one. Output and perfdata are not kept: they travel in the
 * CheckResultProcessed event and live in the projection.
 *
 * A table belongs to one config: a reload builds a new one (`indexConfig`), copying the state of
 * the objects it keeps. The mutable state fields are written by the engine's functions only.
 */
export interface ObjectTable {
  readonly size: number;
  /** Names, hosts, checks, labels and parents of the objects, by object number. */
  readonly config: CompiledConfig;
  /** A service's host; a host's own number (the config's). */
  readonly hostOf: Int32Array;

  /** STATE codes (see `stateName`). */
  readonly state: Uint8Array;
  /** 0 HARD, 1 SOFT. */
  readonly stateType: Uint8Array;
  readonly lastHardState: Uint8Array;
  readonly attempt: Float64Array;
  readonly lastCheck: Float64Array;
  readonly lastStateChange: Float64Array;
  readonly lastHardStateChange: Float64Array;
  /** The flap detector's value f in [0, 1]. */
  readonly flap: Float64Array;
  /** 1 while flapping. */
  readonly flapping: Uint8Array;
  /** 1 while reachable. */
  readonly reachable: Uint8Array;
  /** How many downtimes on the object are active. */
  readonly activeDowntimes: Uint32Array;
  /** When the last result (of any source) was applied, or the object was added: freshness anchor. */
  readonly lastReceived: Float64Array;
  /** When the last submitted (non-synthesized) result was applied, or the object was added. */
  readonly lastSubmitted: Float64Array;
  /**
   * The run-time switches an operator turned off (SetObjectFlags), a bit each
   * (src/model/object-flags.ts); 0 while all are on. Kept across reloads like the rest of the state.
   */
  readonly disabled: Uint8Array;
  /** Acknowledgements of the objects that have one. */
  readonly acks: Map<number, AcknowledgementInfo>;
}

/** Object states by code; PENDING is 0, so a fresh table is all PENDING. */
const STATE_NAMES: readonly ObjectState[] = [
  "PENDING",
  "OK",
  "WARNING",
  "CRITICAL",
  "UNKNOWN",
  "UP",
  "DOWN",
  "UNREACHABLE",
];

/** The code a state is stored as. */
export function stateCode(s: ObjectState): number {
  switch (s) {
    case "PENDING":
      return 0;
    case "OK":
      return 1;
    case "WARNING":
      return 2;
    case "CRITICAL":
      return 3;
    case "UNKNOWN":
      return 4;
    case "UP":
      return 5;
    case "DOWN":
      return 6;
    case "UNREACHABLE":
      return 7;
    default: {
      const never: never = s;
      throw new Error(`unknown state ${String(never)}`);
    }
  }
}

/** The state a code stands for. */
export function stateName(code: number): ObjectState {
  return STATE_NAMES[code] as ObjectState;
}

/** The state type a code stands for. */
export function stateTypeName(code: number): StateType {
  return code === 0 ? "HARD" : "SOFT";
}

/** An object's state. */
export function stateOf(t: ObjectTable, i: number): ObjectState {
  return STATE_NAMES[t.state[i] as number] as ObjectState;
}

/** Whether object i is a service. */
export function isService(t: ObjectTable, i: number): boolean {
  return t.hostOf[i] !== i;
}

/** The check an object runs. */
export function checkOf(t: ObjectTable, i: number): CheckConfig {
  const c = t.config;
  return c.checks[c.checkOf[i] as number] as CheckConfig;
}

/** An object's own labels (a service's, not merged with its host's). */
export function labelsOf(t: ObjectTable, i: number): Labels {
  const c = t.config;
  return c.labelSets[c.labelsOf[i] as number] as Labels;
}

/** The host name of an object (its own name for a host). */
export function hostNameOf(t: ObjectTable, i: number): string {
  const c = t.config;
  return c.names[c.nameOf[t.hostOf[i] as number] as number] as string;
}

/** The service name of a service; undefined for a host. */
export function serviceNameOf(t: ObjectTable, i: number): string | undefined {
  const c = t.config;
  return t.hostOf[i] === i ? undefined : (c.names[c.nameOf[i] as number] as string);
}

/** The key of an object: `host` or `host!service`. */
export function keyOf(t: ObjectTable, i: number): string {
  const host = hostNameOf(t, i);
  return t.hostOf[i] === i ? host : `${host}!${serviceNameOf(t, i)}`;
}

/** The object a (host, service) pair names, or undefined when it is not configured. */
export function lookup(t: ObjectTable, host: string, service: string | undefined): number | undefined {
  return lookupObject(t.config, host, service);
}

/**
 * The object a key names, or undefined. The first `!` separates host from service (objectKey's
 * rule); a key that names no service that way is tried as a host name.
 */
export function lookupKey(t: ObjectTable, key: string): number | undefined {
  const bang = key.indexOf("!");
  if (bang < 0) return lookup(t, key, undefined);
  return lookup(t, key.slice(0, bang), key.slice(bang + 1)) ?? lookup(t, key, undefined);
}

/** A table for `config` with every object PENDING and added at `at`. */
function createTable(config: CompiledConfig, at: number): ObjectTable {
  const n = config.size;
  return {
    size: n,
    config,
    hostOf: config.hostOf,
    state: new Uint8Array(n),
    stateType: new Uint8Array(n),
    lastHardState: new Uint8Array(n),
    attempt: new Float64Array(n).fill(1),
    lastCheck: new Float64Array(n),
    lastStateChange: new Float64Array(n),
    lastHardStateChange: new Float64Array(n),
    flap: new Float64Array(n),
    flapping: new Uint8Array(n),
    reachable: new Uint8Array(n).fill(1),
    activeDowntimes: new Uint32Array(n),
    lastReceived: new Float64Array(n).fill(at),
    lastSubmitted: new Float64Array(n).fill(at),
    disabled: new Uint8Array(n),
    acks: new Map(),
  };
}

/** An empty table (no objects). */
export function emptyTable(): ObjectTable {
  return createTable(EMPTY_COMPILED_CONFIG, 0);
}

/** Copies object `from` of `src` to object `to` of `dst`: all of its state. */
function copyState(src: ObjectTable, from: number, dst: ObjectTable, to: number): void {
  dst.state[to] = src.state[from] as number;
  dst.stateType[to] = src.stateType[from] as number;
  dst.lastHardState[to] = src.lastHardState[from] as number;
  dst.attempt[to] = src.attempt[from] as number;
  dst.lastCheck[to] = src.lastCheck[from] as number;
  dst.lastStateChange[to] = src.lastStateChange[from] as number;
  dst.lastHardStateChange[to] = src.lastHardStateChange[from] as number;
  dst.flap[to] = src.flap[from] as number;
  dst.flapping[to] = src.flapping[from] as number;
  dst.reachable[to] = src.reachable[from] as number;
  dst.activeDowntimes[to] = src.activeDowntimes[from] as number;
  dst.lastReceived[to] = src.lastReceived[from] as number;
  dst.lastSubmitted[to] = src.lastSubmitted[from] as number;
  dst.disabled[to] = src.disabled[from] as number;
  const ack = src.acks.get(from);
  if (ack !== undefined) dst.acks.set(to, ack);
}

/** What indexConfig built: the new table and how the old objects map onto it. */
export interface Indexed {
  readonly table: ObjectTable;
  /** The new objects (PENDING, added at `at`), in config order. */
  readonly added: readonly number[];
  /** Per old object, its number in the new table, or -1 when the config no longer has it. */
  readonly moved: Int32Array;
  readonly hosts: number;
  readonly services: number;
}

/**
 * Builds the object table for a config: objects `old` also has keep their state, new ones are
 * PENDING and stamped `at`. `old` is not modified.
 */
export function indexConfig(config: CompiledConfig, old: ObjectTable, at: number): Indexed {
  const table = createTable(config, at);
  const moved = new Int32Array(old.size).fill(-1);
  const added: number[] = [];
  let hosts = 0;
  for (let i = 0; i < table.size; i++) {
    if (table.hostOf[i] === i) hosts++;
    const from = lookup(old, hostNameOf(table, i), serviceNameOf(table, i));
    if (from === undefined) {
      added.push(i);
      continue;
    }
    copyState(old, from, table, i);
    moved[from] = i;
  }
  return { table, added, moved, hosts, services: table.size - hosts };
}

/** The object fields every object event starts with. */
export function eventBase(t: ObjectTable, i: number, at: number): ObjectEventBase {
  const host = hostNameOf(t, i);
  const service = serviceNameOf(t, i);
  return service === undefined ? { at, key: host, host } : { at, key: `${host}!${service}`, host, service };
}

/** OK and UP: the states that are not problems (PENDING is neither). */
export function isOkState(s: ObjectState): boolean {
  return s === "OK" || s === "UP";
}

/** A problem state: anything but OK, UP and PENDING. */
export function isProblemState(s: ObjectState): boolean {
  return s !== "OK" && s !== "UP" && s !== "PENDING";
}

/** An object's status as events and queries show it. */
export function statusOf(t: ObjectTable, i: number): ObjectStatus {
  const status: ObjectStatus = {
    state: stateName(t.state[i] as number),
    stateType: stateTypeName(t.stateType[i] as number),
    attempt: t.attempt[i] as number,
    maxAttempts: checkOf(t, i).maxAttempts,
    lastCheck: t.lastCheck[i] as number,
    lastStateChange: t.lastStateChange[i] as number,
    lastHardState: stateName(t.lastHardState[i] as number),
    lastHardStateChange: t.lastHardStateChange[i] as number,
    flapping: t.flapping[i] === 1,
    flapPercent: (t.flap[i] as number) * 100,
    acknowledgement: t.acks.get(i) ?? null,
    inDowntime: (t.activeDowntimes[i] as number) > 0,
    reachable: t.reachable[i] === 1,
  };
  const disabled = t.disabled[i] as number;
  return disabled === 0 ? status : { ...status, ...disabledFields(disabled) };
}

/** Whether an operator turned switch `s` of object i off (SetObjectFlags). */
export function isSwitchedOff(t: ObjectTable, i: number, s: ObjectSwitch): boolean {
  return ((t.disabled[i] as number) & switchBit(s)) !== 0;
}
