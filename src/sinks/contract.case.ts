/**
 * The contract every sink type passes (hono's common.case.test.ts): each type's test file calls
 * `runSinkContract` with a backend of its own (the real server where Debian ships one) and a way to
 * read back what the backend holds, normalised. The suite drives a real Core and ConsumerHost:
 * results with perfdata go in through `submit`, records come out at the backend.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ConsumerHost } from "../consumers/index.js";
import { Core } from "../core/core.js";
import { fleetConfig, fleetHost, fleetService } from "../core/fleet-config.js";
import type { CommandInput } from "../core/validate.js";
import { systemClock } from "../model/clock.js";
import type { Config, SinkConfig } from "../model/config.js";
import type { RecordedEvent, SinkDroppedEvent } from "../model/events.js";
import { silentLogger } from "../model/logger.js";
import { createSink, type SinkDeps } from "./create-sink.js";
import type { Sink, SinkBatch } from "./sink.js";
import { SinkSet } from "./sink-set.js";

/** A point as a backend holds it, normalised for comparison. */
export interface SeenPoint {
  readonly host: string;
  readonly service: string;
  readonly name: string;
  readonly value: number;
  /** Ms since the epoch (backends with second resolution: rounded down to the second). */
  readonly time: number;
}

/** An event as a backend holds it. */
export interface SeenEvent {
  readonly seq: number;
  readonly type: string;
  /** The object's host, for events about one. */
  readonly host?: string;
}

/** A way for the suite to make the backend misbehave; modes a type cannot simulate are skipped. */
export type FaultMode = "ok" | "down" | "slow" | "garbage";

/** One backend, started for one test. */
export interface ContractBackend {
  /** The type's own fields of the sink config (url, path, command, table, …). */
  readonly fields: Record<string, unknown>;
  readPoints(): Promise<SeenPoint[]>;
  readEvents(): Promise<SeenEvent[]>;
  /** Sets a fault; absent: the type cannot simulate faults. */
  fault?(mode: FaultMode): void;
  readonly faults?: readonly FaultMode[];
  /** Whether the backend keeps seq order of points (false: the suite sorts before comparing). */
  readonly ordered?: boolean;
  /** Time resolution of points in ms (1000 for second-resolution backends). */
  readonly timeResolutionMs?: number;
  /** Whether the backend can hold the `events` input (remote_write cannot). */
  readonly events?: boolean;
  /** Whether the backend can hold the `metrics` input (the archive cannot). */
  readonly metrics?: boolean;
  /**
   * A check time whose points the backend refuses (Prometheus: too old; ClickHouse: a date it
   * cannot parse); absent: the backend takes every point and the refusal case is skipped.
   */
  readonly refusedTime?: number;
  stop(): Promise<void>;
}

export interface SinkContract {
  readonly type: SinkConfig["type"];
  /** Names the suite when a type runs it against more than one backend. */
  readonly label?: string;
  /** Starts a backend for one test. `name` is unique per test. */
  backend(name: string, dir: string): Promise<ContractBackend>;
  /** How long to wait for records to arrive (default 20 s). */
  readonly timeoutMs?: number;
}

const HOSTS = 4;
const base = fleetConfig({ hosts: HOSTS, servicesPerHost: 2, maxAttempts: 1 });

function sinkConfig(
  type: SinkConfig["type"],
  fields: Record<string, unknown>,
  o: Partial<SinkConfig>,
): SinkConfig {
  return {
    name: "s",
    input: "metrics",
    selector: "",
    batchSize: 1000,
    flushIntervalMs: 50,
    cursor: "oldest",
    headers: {},
    rotateBytes: 1 << 30,
    segmentBytes: 1 << 20,
    table: "perfdata",
    ...fields,
    ...o,
    type,
  } as unknown as SinkConfig;
}

/** A running Lookout core with its sinks, reopenable on the same data dir. */
interface Rig {
  core: Core;
  host: ConsumerHost;
  sinks: SinkSet;
  batches: number[];
  /** Types of the events the sinks recorded. */
  recorded: string[];
  /** The SinkDropped events the sinks recorded. */
  dropped: SinkDroppedEvent[];
  close(): Promise<void>;
}

async function openRig(dataDir: string, config: Config): Promise<Rig> {
  const core = await Core.open({ dataDir, config, clock: systemClock });
  const host = ConsumerHost.open({ dataDir, clock: systemClock, logger: silentLogger });
  const off = core.onCommitted(() => host.notify());
  const batches: number[] = [];
  const recorded: string[] = [];
  const dropped: SinkDroppedEvent[] = [];
  const record = (events: RecordedEvent[]): void => {
    for (const e of events) {
      recorded.push(e.type);
      if (e.type === "SinkDropped") dropped.push(e);
    }
    core.submit([{ type: "RecordEvents", events } as CommandInput]).catch(() => {});
  };
  const spy = (c: SinkConfig, deps: SinkDeps): Sink | undefined => {
    const s = createSink(c, deps);
    if (s === undefined) return undefined;
    return {
      async send(b: SinkBatch, signal: AbortSignal) {
        const r = await s.send(b, signal);
        if (r.kind === "delivered") batches.push(b.records.length);
        return r;
      },
      close: () => s.close(),
    };
  };
  const sinks = new SinkSet(
    {
      host,
      logger: silentLogger,
      record,
      clock: systemClock,
      dataDir,
      create: spy,
      minBackoffMs: 20,
      maxBackoffMs: 200,
    },
    config,
  );
  await sinks.start(config);
  return {
    core,
    host,
    sinks,
    batches,
    recorded,
    dropped,
    async close() {
      await sinks.stop();
      off();
      await host.stop();
      await core.close();
    },
  };
}

/** The ProcessCheckResult command of result `i`, with two perfdata points, and those points. */
function result(i: number, time: number, svc = 0): { command: CommandInput; points: SeenPoint[] } {
  const host = fleetHost(i % HOSTS);
  const service = fleetService(svc);
  return {
    command: {
      type: "ProcessCheckResult",
      result: {
        host,
        service,
        exitStatus: 0,
        output: `result ${i}`,
        longOutput: "",
        perfdata: [
          { label: "load", value: i, uom: "", warn: "5", crit: "10", min: 0 },
          { label: "time", value: i / 4, uom: "s", warn: "", crit: "" },
        ],
        checkedAt: time,
        durationMs: 0,
        source: "passive",
      },
    },
    points: [
      { host, service, name: "load", value: i, time },
      { host, service, name: "time", value: i / 4, time },
    ],
  };
}

/** Submits `n` results, each with two perfdata points, round-robin over the hosts' first service. */
async function submitResults(core: Core, from: number, n: number): Promise<SeenPoint[]> {
  const want: SeenPoint[] = [];
  // Recent times 10 ms apart: a TSDB takes only recent samples, each series' times ascending.
  const t0 = Date.now() - 60_000;
  for (let i = from; i < from + n; i++) {
    const host = fleetHost(i % HOSTS);
    const service = fleetService(0);
    const time = t0 + (i - from) * 10;
    await core.submit([
      {
        type: "ProcessCheckResult",
        result: {
          host,
          service,
          exitStatus: 0,
          output: `result ${i}`,
          longOutput: "",
          perfdata: [
            { label: "load", value: i, uom: "", warn: "5", crit: "10", min: 0 },
            { label: "time", value: i / 4, uom: "s", warn: "", crit: "" },
          ],
          checkedAt: time,
          durationMs: 0,
          source: "passive",
        },
      },
    ]);
    want.push(
      { host, service, name: "load", value: i, time },
      { host, service, name: "time", value: i / 4, time },
    );
  }
  await core.flush();
  return want;
}

async function until<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  let last: T = await get();
  while (!ok(last)) {
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 50));
    last = await get();
  }
  return last;
}

const key = (p: SeenPoint): string => `${p.host}|${p.service}|${p.name}|${p.value}|${p.time}`;

/** Runs the shared contract against one sink type. */
export function runSinkContract(c: SinkContract): void {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const tmp = (): string => {
    const d = mkdtempSync(join(tmpdir(), `lookout-sink-${c.type}-`));
    dirs.push(d);
    return d;
  };
  const wait = c.timeoutMs ?? 20_000;
  let serial = 0;

  /** Starts a backend and a rig with one sink "s"; runs `body`; stops both. */
  const withRig = async (
    o: Partial<SinkConfig>,
    body: (rig: Rig, be: ContractBackend, dir: string) => Promise<void>,
    skip?: { t: { skip(m: string): void }; unless: (be: ContractBackend) => boolean },
  ): Promise<void> => {
    const dir = tmp();
    const be = await c.backend(`t${++serial}_${process.pid}`, dir);
    const input = be.metrics === false ? { input: "events" as const } : {};
    const config: Config = {
      ...base,
      sinks: new Map([["s", sinkConfig(c.type, be.fields, { ...o, ...input })]]),
    };
    let rig: Rig | undefined;
    try {
      if (skip !== undefined && !skip.unless(be)) {
        skip.t.skip(`the ${c.type} backend cannot simulate this`);
        return;
      }
      rig = await openRig(join(dir, "data"), config);
      await body(rig, be, dir);
    } finally {
      await rig?.close();
      await be.stop();
    }
  };

  const normalise = (be: ContractBackend, ps: readonly SeenPoint[]): string[] => {
    const res = be.timeResolutionMs ?? 1;
    const ks = ps.map((p) => key({ ...p, time: Math.floor(p.time / res) * res }));
    return be.ordered === false ? ks.sort() : ks;
  };

  const gotAll = async (be: ContractBackend, want: readonly SeenPoint[]): Promise<void> => {
    if (be.metrics === false) {
      // An events-only backend: one CheckResultProcessed per result, in order, each once.
      const hosts = want.filter((p) => p.name === "load").map((p) => p.host);
      const results = (es: SeenEvent[]) => es.filter((e) => e.type === "CheckResultProcessed");
      const got = await until(
        `${hosts.length} results`,
        () => be.readEvents(),
        (es) => results(es).length >= hosts.length,
        wait,
      );
      const seqs = got.map((e) => e.seq);
      assert.deepEqual(
        seqs,
        [...new Set(seqs)].sort((a, b) => a - b),
        "ascending, no repeats",
      );
      assert.deepEqual(
        results(got).map((e) => e.host),
        hosts,
        "every result once, in order",
      );
      return;
    }
    const got = await until(
      `${want.length} points`,
      () => be.readPoints(),
      (ps) => ps.length >= want.length,
      wait,
    );
    assert.deepEqual(normalise(be, got), normalise(be, want), "every point once, in order");
  };

  const metricsOk = (be: ContractBackend): boolean => be.metrics !== false;

  describe(`sink contract: ${c.label ?? c.type}`, () => {
    it("metrics: every perfdata point once, in order, with host, service, name, value and time", async () => {
      await withRig({}, async (rig, be) => {
        const want = await submitResults(rig.core, 0, 7);
        await gotAll(be, want);
      });
    });

    it("batches by batch_size at event boundaries and flushes a partial batch after flush_interval", async () => {
      await withRig({ batchSize: 5, flushIntervalMs: 100 }, async (rig, be) => {
        const want = await submitResults(rig.core, 0, 6);
        await gotAll(be, want);
        assert.ok(rig.batches.length >= 3, `several sends: ${rig.batches}`);
        for (const n of rig.batches)
          assert.ok(n <= 5 && (n % 2 === 0 || !metricsOk(be)), `at most 5 records, whole results: ${n}`);
      });
    });

    it("events: the log's events in order, each once", async (t) => {
      await withRig(
        { input: "events" },
        async (rig, be) => {
          await submitResults(rig.core, 0, 3);
          const last = rig.host.status("sink:s")?.lastSeq ?? 0;
          const got = await until(
            "events",
            () => be.readEvents(),
            (es) => es.length > 0 && (es[es.length - 1]?.seq ?? 0) >= last,
            wait,
          );
          const seqs = got.map((e) => e.seq);
          assert.deepEqual(
            seqs,
            [...new Set(seqs)].sort((a, b) => a - b),
            "ascending, no repeats",
          );
          assert.equal(got.filter((e) => e.type === "CheckResultProcessed").length, 3);
        },
        { t, unless: (be) => be.events !== false },
      );
    });

    it("selector: only the points of objects whose labels match", async () => {
      await withRig({ selector: "env=prod, tier=web" }, async (rig, be) => {
        const all = await submitResults(rig.core, 0, 8);
        // fleetConfig: even hosts are env=prod; the first service is tier=web.
        const want = all.filter((p) => Number(p.host.slice(-1)) % 2 === 0);
        await gotAll(be, want);
        await new Promise((r) => setTimeout(r, 300));
        if (metricsOk(be))
          assert.equal((await be.readPoints()).length, want.length, "no dev points later either");
      });
    });

    for (const mode of ["down", "slow", "garbage"] as const) {
      it(`backend ${mode}: retried with backoff, nothing lost, the outage recorded`, async (t) => {
        await withRig(
          {},
          async (rig, be) => {
            be.fault?.(mode);
            const want = await submitResults(rig.core, 0, 5);
            const stats = () => rig.sinks.list()[0]?.stats;
            if (mode !== "slow") {
              await until(
                "a retry",
                async () => stats()?.retries ?? 0,
                (n) => n >= 2,
                wait,
              );
              assert.equal(stats()?.sent, 0);
            }
            be.fault?.("ok");
            await gotAll(be, want);
            if (mode !== "slow") {
              // The backend may show the records a moment before the runner hears the acknowledgement.
              await until(
                "the recovery",
                async () => stats()?.retrying,
                (r) => r === false,
                wait,
              );
              assert.deepEqual(
                rig.recorded,
                ["SinkFailed", "SinkFlushed"],
                "one event per outage and recovery",
              );
            }
          },
          { t, unless: (be) => be.fault !== undefined && (be.faults ?? []).includes(mode) },
        );
      });
    }

    it("a batch with a point the backend refuses: only it is dropped and named, the rest written", async (t) => {
      await withRig(
        {},
        async (rig, be) => {
          const first = await submitResults(rig.core, 0, 4);
          await gotAll(be, first);
          // One commit, so one send: results 4 and 6 are good, result 5 has a time the backend
          // refuses (of another service: the engine ignores a result older than its object's last).
          // Times as submitResults gives them, so that later tests' series still go forward in time.
          const t0 = Date.now() - 60_000;
          const good = [result(4, t0), result(6, t0 + 10)];
          const bad = result(5, be.refusedTime as number, 1);
          await rig.core.submit([good[0], bad, good[1]].map((r) => r?.command as CommandInput));
          await rig.core.flush();
          await gotAll(be, [...first, ...good.flatMap((r) => r.points)]);
          await until(
            "the drops",
            async () => rig.dropped.length,
            (n) => n >= 2,
            wait,
          );
          const stats = rig.sinks.list()[0]?.stats;
          assert.equal(stats?.dropped.get("rejected"), 2, "the bad result's two points");
          assert.deepEqual(
            rig.dropped.map((d) => [d.count, d.fromSeq === d.toSeq, d.record]),
            bad.points.map((p) => [
              1,
              true,
              { host: p.host, service: p.service, perfdata: p.name, time: p.time },
            ]),
          );
          assert.equal((await be.readPoints()).length, first.length + 4, "nothing else dropped");
        },
        { t, unless: (be) => be.refusedTime !== undefined },
      );
    });

    it("resumes after a restart where it stopped: nothing lost, nothing repeated", async () => {
      const dir = tmp();
      const be = await c.backend(`r${++serial}_${process.pid}`, dir);
      const input = be.metrics === false ? { input: "events" as const } : {};
      const config: Config = { ...base, sinks: new Map([["s", sinkConfig(c.type, be.fields, input)]]) };
      let rig: Rig | undefined;
      try {
        rig = await openRig(join(dir, "data"), config);
        const first = await submitResults(rig.core, 0, 4);
        await gotAll(be, first);
        await rig.close();
        rig = undefined;
        rig = await openRig(join(dir, "data"), config);
        const second = await submitResults(rig.core, 4, 4);
        await gotAll(be, [...first, ...second]);
      } finally {
        await rig?.close();
        await be.stop();
      }
    });
  });
}

/** Points from NDJSON lines as the http, exec and file sinks write them. */
export function pointsFromNdjson(text: string): SeenPoint[] {
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as SeenPoint & { seq: number })
    .filter((o) => typeof o.name === "string" && typeof o.value === "number")
    .map((o) => ({ host: o.host, service: o.service, name: o.name, value: o.value, time: o.time }));
}

/** Events from NDJSON lines as the http, exec, file and archive sinks write them. */
export function eventsFromNdjson(text: string): SeenEvent[] {
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as SeenEvent)
    .filter((o) => typeof o.type === "string")
    .map((o) => ({ seq: o.seq, type: o.type, ...(o.host === undefined ? {} : { host: o.host }) }));
}
