import type { Clock } from "../model/clock.js";
import type { Command } from "../model/commands.js";
import { type Config, EMPTY_CONFIG } from "../model/config.js";
import type { EngineEvent, ObjectStatus } from "../model/events.js";
import type { ObjectSwitch } from "../model/object-flags.js";
import { objectKey } from "../model/object-ref.js";
import { acknowledge, unacknowledge } from "./acknowledgements.js";
import { applyConfig } from "./apply-config.js";
import { addComment, deleteComment } from "./comments.js";
import { type CompiledConfig, compileConfig, isCompiledConfig } from "./compiled-config.js";
import { configDigest } from "./config-digest.js";
import { customNotification } from "./custom-notification.js";
import { deleteDowntime, scheduleDowntime, triggerFlexible } from "./downtimes.js";
import type { Downtime, EngineState } from "./engine-state.js";
import { setObjectFlags } from "./object-flags.js";
import {
  emptyTable,
  indexConfig,
  isSwitchedOff,
  keyOf,
  lookup,
  lookupKey,
  statusOf,
} from "./object-table.js";
import { processResult } from "./process-result.js";
import { rescheduleCheck } from "./reschedule.js";
import { type EngineSnapshot, restoreSnapshot, takeSnapshot } from "./snapshot.js";
import { createTimerQueue } from "./timer-queue.js";
import { fireDue, nextWakeup, rebuildTimers } from "./timers.js";

/** A downtime as queries see it. */
export interface DowntimeInfo {
  readonly id: string;
  readonly start: number;
  readonly end: number;
  readonly author: string;
  readonly comment: string;
  readonly flexible: boolean;
  /** Flexible only (ms); 0 for a fixed downtime. */
  readonly durationMs: number;
  readonly created: number;
  readonly active: boolean;
  /** When it ends (a flexible one waiting: when it expires unused). */
  readonly endsAt: number;
  /** Keys of the objects it covers. */
  readonly objects: readonly string[];
}

/** An operator's comment as queries see it. */
export interface CommentInfo {
  readonly id: string;
  readonly key: string;
  readonly author: string;
  readonly text: string;
  readonly created: number;
}

/**
 * The state engine: a deterministic function from (state, command) to (state, events). It does no
 * I/O and reads time only from the commands (`at`) — the clock serves the `tick()` convenience only.
 * Not safe for concurrent use: one writer owns it, applies commands in log order and appends the
 * events it returns.
 *
 * Restart: `restore(snapshot, configAtSnapshot)` then re-apply the logged commands after the
 * snapshot; the events and the state are identical to the first time round.
 */
export interface Engine {
  /** Applies one command (after firing every timer due at or before `command.at`). */
  apply(command: Command): EngineEvent[];
  /** `apply({ type: "ApplyConfig", at, config })`, `at` defaulting to the clock. */
  applyConfig(config: Config, at?: number): EngineEvent[];
  /**
   * Applies a config in its compiled form (src/engine/compiled-config.ts) as an ApplyConfig command
   * would, known by `digest`: what the store's writer does, which never holds a Config.
   */
  applyCompiled(config: CompiledConfig, at: number, digest: string): EngineEvent[];
  /** `apply({ type: "Tick", at })`, `at` defaulting to the clock. */
  tick(at?: number): EngineEvent[];
  /** When the writer must next apply a Tick (ms since the epoch), or undefined for never. */
  nextWakeup(): number | undefined;
  /**
   * Whether an operator turned switch `s` of an object off (SetObjectFlags); false for an object
   * the config does not have. Cheap: for validating every submitted result.
   */
  switchedOff(host: string, service: string | undefined, s: ObjectSwitch): boolean;
  /** An object's current status, by key (`host` or `host!service`). */
  status(key: string): ObjectStatus | undefined;
  /** One downtime, by id; undefined once it ended or was deleted. */
  downtime(id: string): DowntimeInfo | undefined;
  /** Every scheduled or active downtime, in scheduling order. */
  downtimes(): DowntimeInfo[];
  /** Every operator's comment, in the order they were added. */
  comments(): CommentInfo[];
  /** The config the engine runs with, compiled (what `restore` takes with a snapshot). */
  readonly config: CompiledConfig;
  /** The digest of the config in force (ApplyConfig's digest, or configDigest of it). */
  digest(): string;
  /** Keys of every object, in config order. */
  keys(): IterableIterator<string>;
  /** The whole state as plain JSON data. */
  snapshot(): EngineSnapshot;
  /** Replaces the whole state; `config` must be the config in force when the snapshot was taken. */
  restore(snapshot: EngineSnapshot, config: Config | CompiledConfig): void;
}

export interface EngineOptions {
  /**
   * Supplies `at` for the tick() and applyConfig() conveniences when they are called without one;
   * apply() never reads it.
   */
  readonly clock?: Clock;
  /**
   * The config to start with, every object PENDING, without events (default EMPTY_CONFIG). A writer
   * that logs its config starts empty and applies an ApplyConfig command instead.
   */
  readonly config?: Config;
  /** When the starting objects were added (their freshness anchor); default the clock, else 0. */
  readonly at?: number;
}

/** Creates an engine; see EngineOptions. */
export function createEngine(options: EngineOptions = {}): Engine {
  const { clock } = options;
  const now = (at: number | undefined): number => {
    if (at !== undefined) return at;
    if (clock === undefined) throw new Error("engine has no clock: pass `at`");
    return clock.now();
  };
  const st: EngineState = {
    digest: configDigest(EMPTY_CONFIG),
    objects: emptyTable(),
    hosts: 0,
    services: 0,
    downtimes: new Map(),
    downtimeSeq: 0,
    waiting: new Set(),
    comments: new Map(),
    commentSeq: 0,
    timers: createTimerQueue(),
  };
  if (options.config !== undefined && options.config !== EMPTY_CONFIG) {
    const at = options.at ?? clock?.now() ?? 0;
    const { table, hosts, services } = indexConfig(compileConfig(options.config), st.objects, at);
    Object.assign(st, {
      digest: configDigest(options.config),
      objects: table,
      hosts,
      services,
    });
    rebuildTimers(st);
  }

  function apply(cmd: Command): EngineEvent[] {
    const out: EngineEvent[] = [];
    fireDue(st, cmd.at, out);
    switch (cmd.type) {
      case "ProcessCheckResult": {
        const r = cmd.result;
        // Two short lookups (host, then its service) instead of building and hashing a key.
        const i = lookup(st.objects, r.host, r.service);
        if (i === undefined) {
          const key = objectKey(r);
          out.push({
            type: "CommandRejected",
            at: cmd.at,
            command: cmd.type,
            key,
            reason: `unknown object ${key}`,
          });
        } else if (r.checkedAt < (st.objects.lastCheck[i] as number)) {
          out.push({
            type: "CommandRejected",
            at: cmd.at,
            command: cmd.type,
            key: keyOf(st.objects, i),
            reason: `result checked at ${new Date(r.checkedAt).toISOString()} is older than the last result applied (${new Date(st.objects.lastCheck[i] as number).toISOString()})`,
          });
        } else if (r.source === "passive" && isSwitchedOff(st.objects, i, "passiveChecks")) {
          out.push({
            type: "CommandRejected",
            at: cmd.at,
            command: cmd.type,
            key: keyOf(st.objects, i),
            reason: `passive checks of ${keyOf(st.objects, i)} are disabled`,
          });
        } else {
          const from = out.length;
          processResult(st.objects, i, r, cmd.at, false, out);
          triggerFlexible(st, i, cmd.at, out, from);
        }
        break;
      }
      case "AcknowledgeProblem":
        acknowledge(st, cmd, out);
        break;
      case "RemoveAcknowledgement":
        unacknowledge(st, cmd, out);
        break;
      case "ScheduleDowntime":
        scheduleDowntime(st, cmd, out);
        break;
      case "DeleteDowntime":
        deleteDowntime(st, cmd, out);
        break;
      case "AddComment":
        addComment(st, cmd, out);
        break;
      case "DeleteComment":
        deleteComment(st, cmd, out);
        break;
      case "SendCustomNotification":
        customNotification(st, cmd, out);
        break;
      case "SetObjectFlags":
        setObjectFlags(st, cmd, out);
        break;
      case "RescheduleCheck":
        rescheduleCheck(st, cmd, out);
        break;
      case "ApplyConfig":
        applyConfig(st, compileConfig(cmd.config), cmd.at, cmd.digest ?? configDigest(cmd.config), out);
        // A check that became passive may be overdue already: judge it now, not at the next command.
        fireDue(st, cmd.at, out);
        break;
      case "Tick":
      // The writer appends the recorded events after the timers fired here (store/writer.ts).
      case "RecordEvents":
        break;
      default: {
        const never: never = cmd;
        throw new Error(`unknown command ${JSON.stringify(never)}`);
      }
    }
    return out;
  }

  function info(d: Downtime): DowntimeInfo {
    return {
      id: d.id,
      start: d.start,
      end: d.end,
      author: d.author,
      comment: d.comment,
      flexible: d.flexible,
      durationMs: d.durationMs,
      created: d.created,
      active: d.active,
      endsAt: d.endsAt,
      objects: d.objects.map((i) => keyOf(st.objects, i)),
    };
  }

  return {
    apply,
    applyConfig: (config, at) => apply({ type: "ApplyConfig", at: now(at), config }),
    applyCompiled(config, at, digest) {
      const out: EngineEvent[] = [];
      fireDue(st, at, out);
      applyConfig(st, config, at, digest, out);
      fireDue(st, at, out);
      return out;
    },
    tick: (at) => apply({ type: "Tick", at: now(at) }),
    nextWakeup: () => nextWakeup(st),
    switchedOff(host, service, s) {
      const i = lookup(st.objects, host, service);
      return i !== undefined && isSwitchedOff(st.objects, i, s);
    },
    status(key) {
      const i = lookupKey(st.objects, key);
      return i === undefined ? undefined : statusOf(st.objects, i);
    },
    downtime(id) {
      const d = st.downtimes.get(id);
      return d === undefined ? undefined : info(d);
    },
    downtimes: () => [...st.downtimes.values()].map(info),
    comments: () =>
      [...st.comments.values()].map((c) => ({
        id: c.id,
        key: keyOf(st.objects, c.object),
        author: c.author,
        text: c.text,
        created: c.created,
      })),
    get config() {
      return st.objects.config;
    },
    digest: () => st.digest,
    *keys() {
      for (let i = 0; i < st.objects.size; i++) yield keyOf(st.objects, i);
    },
    snapshot: () => takeSnapshot(st),
    restore: (snapshot, config) =>
      restoreSnapshot(st, snapshot, isCompiledConfig(config) ? config : compileConfig(config)),
  };
}

/** An engine restored from a snapshot and the config in force when it was taken. */
export function restoreEngine(
  snapshot: EngineSnapshot,
  config: Config | CompiledConfig,
  options: EngineOptions = {},
): Engine {
  const engine = createEngine({ ...options, config: EMPTY_CONFIG });
  engine.restore(snapshot, config);
  return engine;
}
