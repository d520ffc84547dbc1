import type { Config } from "../model/config.js";
import type { AcknowledgementInfo } from "../model/events.js";
import type { ObjectState, StateType } from "../model/state.js";
import { indexConfig } from "./apply-config.js";
import type { EngineState } from "./engine-state.js";
import type { ObjectRecord } from "./object-record.js";
import { rebuildTimers } from "./timers.js";

/** One object's state in a snapshot, as a tuple: 100,000 of them stay compact. */
export type SnapshotObject = [
  key: string,
  state: ObjectState,
  stateType: StateType,
  attempt: number,
  lastCheck: number,
  lastStateChange: number,
  lastHardState: ObjectState,
  lastHardStateChange: number,
  flap: number,
  flapping: boolean,
  reachable: boolean,
  ack: AcknowledgementInfo | null,
  lastReceived: number,
  lastSubmitted: number,
];

export interface SnapshotDowntime {
  readonly id: string;
  readonly ord: number;
  readonly start: number;
  readonly end: number;
  readonly author: string;
  readonly comment: string;
  readonly active: boolean;
  readonly objects: readonly string[];
}

/**
 * The engine's whole state as plain JSON data (no Maps, no classes): what restore needs, together
 * with the config that was in force when it was taken.
 */
export interface EngineSnapshot {
  readonly version: 1;
  readonly digest: string;
  readonly downtimeSeq: number;
  readonly objects: readonly SnapshotObject[];
  readonly downtimes: readonly SnapshotDowntime[];
}

export function takeSnapshot(st: EngineState): EngineSnapshot {
  const objects: SnapshotObject[] = [];
  for (const r of st.objects.values()) {
    objects.push([
      r.key,
      r.state,
      r.stateType,
      r.attempt,
      r.lastCheck,
      r.lastStateChange,
      r.lastHardState,
      r.lastHardStateChange,
      r.flap,
      r.flapping,
      r.reachable,
      r.ack,
      r.lastReceived,
      r.lastSubmitted,
    ]);
  }
  const downtimes: SnapshotDowntime[] = [];
  for (const d of st.downtimes.values()) {
    downtimes.push({
      id: d.id,
      ord: d.ord,
      start: d.start,
      end: d.end,
      author: d.author,
      comment: d.comment,
      active: d.active,
      objects: d.objects.map((r) => r.key),
    });
  }
  return { version: 1, digest: st.digest, downtimeSeq: st.downtimeSeq, objects, downtimes };
}

/**
 * Replaces the state with a snapshot's. `config` must be the config in force when the snapshot was
 * taken: a snapshot object the config lacks (or the other way round) throws, and nothing changes.
 */
export function restoreSnapshot(st: EngineState, snap: EngineSnapshot, config: Config): void {
  if (snap.version !== 1) throw new Error(`unsupported engine snapshot version ${String(snap.version)}`);
  const { objects, hosts, services } = indexConfig(config, new Map(), 0);
  if (objects.size !== snap.objects.length) {
    throw new Error(
      `snapshot holds ${snap.objects.length} objects but the config has ${objects.size}: not the config of the snapshot`,
    );
  }
  for (const o of snap.objects) {
    if (!objects.has(o[0])) throw new Error(`snapshot object ${o[0]} is not in the config`);
  }
  for (const o of snap.objects) {
    const r = objects.get(o[0]) as ObjectRecord;
    [
      ,
      r.state,
      r.stateType,
      r.attempt,
      r.lastCheck,
      r.lastStateChange,
      r.lastHardState,
      r.lastHardStateChange,
      r.flap,
      r.flapping,
      r.reachable,
      r.ack,
      r.lastReceived,
      r.lastSubmitted,
    ] = o;
  }
  st.downtimes = new Map();
  for (const d of snap.downtimes) {
    const recs = d.objects.map((k) => objects.get(k)).filter((r) => r !== undefined);
    if (d.active) for (const r of recs) r.activeDowntimes++;
    st.downtimes.set(d.id, { ...d, objects: recs });
  }
  st.config = config;
  st.digest = snap.digest;
  st.downtimeSeq = snap.downtimeSeq;
  st.objects = objects;
  st.hosts = hosts;
  st.services = services;
  rebuildTimers(st);
}
