import { statSync } from "node:fs";
import { join } from "node:path";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { CommandResult, CommandSource, Core } from "../core/index.js";
import type { LineResult } from "../extcmd/index.js";
import type { ObjectState } from "../model/state.js";
import { summaryFields } from "../store/index.js";

/** The states of each kind of object, as `lookout_objects` labels them (every one is exported). */
const STATES: Record<"host" | "service", readonly ObjectState[]> = {
  host: ["PENDING", "UP", "DOWN", "UNREACHABLE"],
  service: ["PENDING", "OK", "WARNING", "CRITICAL", "UNKNOWN"],
};
const KINDS = ["host", "service"] as const;
type Kind = (typeof KINDS)[number];

/** The files of the event log in the data directory (SQLite with its write-ahead log). */
const LOG_FILES = ["lookout.db", "lookout.db-wal", "lookout.db-shm"];

/** Buckets of `lookout_log_commit_seconds`: a group commit is an fsync or two. */
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Registers the metrics of the command pipeline and of what it holds (docs/metrics.md): objects by
 * kind, state and state type, and how many are acknowledged, in downtime, flapping, or problems
 * (handled or not), counted per scrape from the summaries the projection keeps beside each record
 * (one pass over a typed array, no record read: under a millisecond at 100,000 objects); commands
 * by source, type and result, and commit latency (told by Core as they happen); the queue's depth;
 * the log's events and its size on disk. Sets Core's observer.
 */
export function registerPipelineMetrics(
  registry: Registry,
  core: Pick<Core, "view" | "queueDepth" | "observe" | "dataDir" | "rejectedCommands">,
): void {
  const commands = new Counter({
    name: "lookout_commands_total",
    help: "Commands submitted to the pipeline, by who submitted them (api, command_file, scheduler, zones, notifier, sinks, internal), command type and result: accepted (durably enqueued), refused (at once: invalid, not found, or refused by the state the projection shows) or failed (not stored, e.g. the disk is full).",
    labelNames: ["source", "type", "result"],
    registers: [registry],
  });
  const commit = new Histogram({
    name: "lookout_log_commit_seconds",
    help: "Time from a submission to its durable acknowledgement: the wait for the writer's group commit and its fsync.",
    buckets: COMMIT_BUCKETS,
    registers: [registry],
  });
  core.observe({
    commands(source: CommandSource, type: string, result: CommandResult, n: number) {
      commands.inc({ source, type, result }, n);
    },
    committed(seconds: number) {
      commit.observe(seconds);
    },
  });

  new Counter({
    name: "lookout_commands_rejected_total",
    help: "Commands accepted (enqueued) that the engine then refused when it applied them, by command type: each is a CommandRejected event in history.",
    labelNames: ["type"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [type, n] of core.rejectedCommands) this.inc({ type }, n);
    },
  });

  new Gauge({
    name: "lookout_command_queue_depth",
    help: "Submissions (command batches, check results, reloads, engine timer ticks) enqueued or being enqueued and not yet applied and visible to reads.",
    registers: [registry],
    collect() {
      this.set(core.queueDepth);
    },
  });

  /** One count per scrape, shared by the gauges below (collected one after another). */
  let counted: { at: number; counts: ReturnType<typeof countObjects> } | undefined;
  const current = () => {
    const now = Date.now();
    if (counted === undefined || now - counted.at > 100) counted = { at: now, counts: countObjects(core) };
    return counted.counts;
  };
  new Gauge({
    name: "lookout_objects",
    help: "Configured objects by kind (host, service), state (as the API names them, lowercase) and state type (soft, hard); an object without a result yet is pending (hard).",
    labelNames: ["kind", "state", "state_type"],
    registers: [registry],
    collect() {
      this.reset();
      const c = current();
      for (const kind of KINDS) {
        for (const state of STATES[kind]) {
          for (const type of ["SOFT", "HARD"] as const) {
            this.set(
              { kind, state: state.toLowerCase(), state_type: type.toLowerCase() },
              c.byState.get(`${kind} ${state} ${type}`) ?? 0,
            );
          }
        }
      }
    },
  });
  const flagGauge = (name: string, help: string, read: (c: ObjectCounts, kind: Kind) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["kind"],
      registers: [registry],
      collect() {
        const c = current();
        for (const kind of KINDS) this.set({ kind }, read(c, kind));
      },
    });
  flagGauge(
    "lookout_objects_acknowledged",
    "Objects whose problem is acknowledged, by kind.",
    (c, k) => c.acknowledged[k],
  );
  flagGauge(
    "lookout_objects_in_downtime",
    "Objects in an active downtime, by kind.",
    (c, k) => c.inDowntime[k],
  );
  flagGauge("lookout_objects_flapping", "Objects flapping, by kind.", (c, k) => c.flapping[k]);
  new Gauge({
    name: "lookout_problems",
    help: "Objects in a problem state (a service WARNING, CRITICAL or UNKNOWN, a host DOWN or UNREACHABLE), by kind; handled: acknowledged or in downtime.",
    labelNames: ["kind", "handled"],
    registers: [registry],
    collect() {
      const c = current();
      for (const kind of KINDS) {
        this.set({ kind, handled: "true" }, c.problems[kind].handled);
        this.set({ kind, handled: "false" }, c.problems[kind].unhandled);
      }
    },
  });

  let lastSeq = 0;
  new Counter({
    name: "lookout_log_events_total",
    help: "Events appended to the event log since it began (the last event sequence number reads show).",
    registers: [registry],
    collect() {
      const seq = core.view.projection.eventSeq();
      if (seq > lastSeq) {
        this.inc(seq - lastSeq);
        lastSeq = seq;
      }
    },
  });
  new Gauge({
    name: "lookout_log_size_bytes",
    help: "Bytes on disk of the event log (lookout.db with its write-ahead log) in the data directory.",
    registers: [registry],
    collect() {
      let bytes = 0;
      for (const f of LOG_FILES) {
        try {
          bytes += statSync(join(core.dataDir, f)).size;
        } catch {
          // Not there (no write-ahead log right after a checkpoint): nothing to add.
        }
      }
      this.set(bytes);
    },
  });
}

interface ObjectCounts {
  /** By `${kind} ${STATE} ${TYPE}`. */
  readonly byState: Map<string, number>;
  readonly acknowledged: Record<Kind, number>;
  readonly inDowntime: Record<Kind, number>;
  readonly flapping: Record<Kind, number>;
  readonly problems: Record<Kind, { handled: number; unhandled: number }>;
}

/** Counts the configured objects from the projection's summaries (objects without one: PENDING). */
function countObjects(core: Pick<Core, "view">): ObjectCounts {
  const { index, projection } = core.view;
  const byState = new Map<string, number>();
  const zero = (): Record<Kind, number> => ({ host: 0, service: 0 });
  const acknowledged = zero();
  const inDowntime = zero();
  const flapping = zero();
  const records = zero();
  const problems = { host: { handled: 0, unhandled: 0 }, service: { handled: 0, unhandled: 0 } };
  const counts = projection.summaryCounts();
  for (let s = 0; s < counts.length; s++) {
    const n = counts[s] as number;
    if (n === 0) continue;
    const f = summaryFields(s);
    records[f.kind] += n;
    const key = `${f.kind} ${f.state} ${f.stateType}`;
    byState.set(key, (byState.get(key) ?? 0) + n);
    if (f.acknowledged) acknowledged[f.kind] += n;
    if (f.inDowntime) inDowntime[f.kind] += n;
    if (f.flapping) flapping[f.kind] += n;
    if (f.state !== "OK" && f.state !== "UP" && f.state !== "PENDING") {
      if (f.acknowledged || f.inDowntime) problems[f.kind].handled += n;
      else problems[f.kind].unhandled += n;
    }
  }
  // Objects without a record are PENDING (hard), as ListStatus shows them.
  const hosts = index.config.hosts.size;
  const configured: Record<Kind, number> = { host: hosts, service: index.size - hosts };
  for (const kind of KINDS) {
    const none = Math.max(0, configured[kind] - records[kind]);
    const key = `${kind} PENDING HARD`;
    byState.set(key, (byState.get(key) ?? 0) + none);
  }
  return { byState, acknowledged, inDowntime, flapping, problems };
}

/** The results a command-file line can have (extcmd's LineResult), each exported from the start. */
const LINE_RESULTS: readonly LineResult[] = [
  "accepted",
  "unparsable",
  "too_long",
  "invalid",
  "not_found",
  "failed_precondition",
  "failed",
];

/** Registers `lookout_command_file_lines_total{result}` and returns what counts `n` lines. */
export function registerCommandFileMetrics(registry: Registry): (result: LineResult, n: number) => void {
  const lines = new Counter({
    name: "lookout_command_file_lines_total",
    help: "Lines read from the external command file (-command-file), by result: accepted, unparsable, too_long, or refused by the pipeline (invalid, not_found, failed_precondition), or failed (not stored).",
    labelNames: ["result"],
    registers: [registry],
  });
  for (const result of LINE_RESULTS) lines.inc({ result }, 0);
  return (result, n) => lines.inc({ result }, n);
}
