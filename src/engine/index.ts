/**
 * The state engine: hosts and services through PENDING, soft and hard states, parents and
 * reachability, flap detection, acknowledgements, downtimes and passive freshness, as Nagios and
 * Icinga 2 users know them (docs/states.md). It is pure — no I/O, time only from the commands it
 * applies — and deterministic, so a single writer can log commands, apply them, append the events,
 * and after a restart restore a snapshot and re-apply the log to reach the identical state. It
 * runs on a config compiled into tables indexed by object number (`compileConfig`), which is also
 * the form the store's writer receives, keeps and logs.
 *
 * The scheduler (src/engine/scheduler/) lives beside it but is a separate module.
 */

export type { CompiledConfig, IndexArray } from "./compiled-config.js";
export {
  compileConfig,
  decodeCompiledConfig,
  EMPTY_COMPILED_CONFIG,
  encodeCompiledConfig,
  isCompiledConfig,
  isEncodedCompiledConfig,
  lookupObject,
  serviceCount,
} from "./compiled-config.js";
export { configDigest } from "./config-digest.js";
export type { DowntimeInfo, Engine, EngineOptions } from "./engine.js";
export { createEngine, restoreEngine } from "./engine.js";
export { formatDuration } from "./format-duration.js";
export type { EngineSnapshot, SnapshotDowntime, SnapshotObject } from "./snapshot.js";
