import type { AcknowledgementInfo } from "../model/events.js";
import type { ObjectState, StateType } from "../model/state.js";
import type { CompiledConfig } from "./compiled-config.js";
import type { EngineState } from "./engine-state.js";
import {
  emptyTable,
  indexConfig,
  keyOf,
  lookupKey,
  stateCode,
  stateName,
  stateTypeName,
} from "./object-table.js";
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
  /** The switches turned off (object-table's `disabled`); absent when none is (and before it existed). */
  disabled?: number,
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
  /** Absent in snapshots taken before flexible downtimes: fixed, created at 0, ends at `end`. */
  readonly flexible?: boolean;
  readonly durationMs?: number;
  readonly created?: number;
  readonly endsAt?: number;
}

/** An operator's comment in a snapshot: its object by key. */
export interface SnapshotComment {
  readonly id: string;
  readonly key: string;
  readonly author: string;
  readonly text: string;
  readonly created: number;
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
  /** Absent in snapshots taken before comments. */
  readonly comments?: readonly SnapshotComment[];
  readonly commentSeq?: number;
}

export function takeSnapshot(st: EngineState): EngineSnapshot {
  const objects: SnapshotObject[] = [];
  const t = st.objects;
  for (let i = 0; i < t.size; i++) {
    const o: SnapshotObject = [
      keyOf(t, i),
      stateName(t.state[i] as number),
      stateTypeName(t.stateType[i] as number),
      t.attempt[i] as number,
      t.lastCheck[i] as number,
      t.lastStateChange[i] as number,
      stateName(t.lastHardState[i] as number),
      t.lastHardStateChange[i] as number,
      t.flap[i] as number,
      t.flapping[i] === 1,
      t.reachable[i] === 1,
      t.acks.get(i) ?? null,
      t.lastReceived[i] as number,
      t.lastSubmitted[i] as number,
    ];
    if (t.disabled[i] !== 0) o.push(t.disabled[i] as number);
    objects.push(o);
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
      objects: d.objects.map((i) => keyOf(t, i)),
      flexible: d.flexible,
      durationMs: d.durationMs,
      created: d.created,
      endsAt: d.endsAt,
    });
  }
  const comments: SnapshotComment[] = [];
  for (const c of st.comments.values()) {
    comments.push({ id: c.id, key: keyOf(t, c.object), author: c.author, text: c.text, created: c.created });
  }
  return {
    version: 1,
    digest: st.digest,
    downtimeSeq: st.downtimeSeq,
    objects,
    downtimes,
    comments,
    commentSeq: st.commentSeq,
  };
}

/**
 * Replaces the state with a snapshot's. `config` must be the config in force when the snapshot was
 * taken: a snapshot object the config lacks (or the other way round) throws, and nothing changes.
 */
export function restoreSnapshot(st: EngineState, snap: EngineSnapshot, config: CompiledConfig): void {
  if (snap.version !== 1) throw new Error(`unsupported engine snapshot version ${String(snap.version)}`);
  const { table: t, hosts, services } = indexConfig(config, emptyTable(), 0);
  if (t.size !== snap.objects.length) {
    throw new Error(
      `snapshot holds ${snap.objects.length} objects but the config has ${t.size}: not the config of the snapshot`,
    );
  }
  // Object numbers of the snapshot's objects in the new table, all found before anything changes.
  const at = new Int32Array(snap.objects.length);
  for (let k = 0; k < snap.objects.length; k++) {
    const key = (snap.objects[k] as SnapshotObject)[0];
    const i = lookupKey(t, key);
    if (i === undefined) throw new Error(`snapshot object ${key} is not in the config`);
    at[k] = i;
  }
  for (let k = 0; k < snap.objects.length; k++) {
    const o = snap.objects[k] as SnapshotObject;
    const i = at[k] as number;
    t.state[i] = stateCode(o[1]);
    t.stateType[i] = o[2] === "HARD" ? 0 : 1;
    t.attempt[i] = o[3];
    t.lastCheck[i] = o[4];
    t.lastStateChange[i] = o[5];
    t.lastHardState[i] = stateCode(o[6]);
    t.lastHardStateChange[i] = o[7];
    t.flap[i] = o[8];
    t.flapping[i] = o[9] ? 1 : 0;
    t.reachable[i] = o[10] ? 1 : 0;
    if (o[11] === null) t.acks.delete(i);
    else t.acks.set(i, o[11]);
    t.lastReceived[i] = o[12];
    t.lastSubmitted[i] = o[13];
    t.disabled[i] = o[14] ?? 0;
  }
  st.downtimes = new Map();
  st.waiting = new Set();
  for (const d of snap.downtimes) {
    const objects: number[] = [];
    for (const k of d.objects) {
      const i = lookupKey(t, k);
      if (i !== undefined) objects.push(i);
    }
    if (d.active) for (const i of objects) t.activeDowntimes[i] = (t.activeDowntimes[i] as number) + 1;
    st.downtimes.set(d.id, {
      id: d.id,
      ord: d.ord,
      start: d.start,
      end: d.end,
      author: d.author,
      comment: d.comment,
      flexible: d.flexible ?? false,
      durationMs: d.durationMs ?? 0,
      created: d.created ?? 0,
      active: d.active,
      endsAt: d.endsAt ?? d.end,
      objects,
    });
  }
  for (const d of st.downtimes.values()) if (d.flexible && !d.active) st.waiting.add(d);
  st.comments = new Map();
  for (const c of snap.comments ?? []) {
    const i = lookupKey(t, c.key);
    if (i !== undefined)
      st.comments.set(c.id, { id: c.id, object: i, author: c.author, text: c.text, created: c.created });
  }
  st.commentSeq = snap.commentSeq ?? 0;
  st.digest = snap.digest;
  st.downtimeSeq = snap.downtimeSeq;
  st.objects = t;
  st.hosts = hosts;
  st.services = services;
  rebuildTimers(st);
}
