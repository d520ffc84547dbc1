/**
 * Sinks on the sink thread, in-process with a real core and a real HTTP receiver: the thread reads
 * the log and delivers, the main thread's consumer host stores the positions it reports; pausing the
 * host (this server stops leading) stops the thread's sinks, even one retrying a dead backend, and
 * holds their positions; a reload that changes a sink restarts it on the thread from its position.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ConsumerHost } from "../../consumers/index.js";
import { Core } from "../../core/core.js";
import { fleetConfig } from "../../core/fleet-config.js";
import type { CommandInput } from "../../core/validate.js";
import { systemClock } from "../../model/clock.js";
import type { Config, SinkConfig } from "../../model/config.js";
import type { RecordedEvent } from "../../model/events.js";
import { type Logger, silentLogger } from "../../model/logger.js";
import { ndjsonReceiver } from "../http/ndjson-receiver.case.js";
import { SinkSet, type SinkSetOptions } from "../sink-set.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const fleet = fleetConfig({ hosts: 1, servicesPerHost: 1, maxAttempts: 1 });

function httpSink(url: string, over: Partial<SinkConfig> = {}): SinkConfig {
  return {
    name: "out",
    type: "http",
    input: "metrics",
    selector: "",
    batchSize: 3,
    flushIntervalMs: 20,
    url,
    headers: {},
    cursor: "oldest",
    ...over,
  } as SinkConfig;
}

const withSinks = (...sinks: SinkConfig[]): Config => ({
  ...fleet,
  sinks: new Map(sinks.map((s) => [s.name, s])),
});

/** A result whose one perfdata point carries `i` as its value. */
function result(i: number): CommandInput {
  return {
    type: "ProcessCheckResult",
    result: {
      host: "host-00000",
      service: "svc-000",
      exitStatus: 0,
      output: `result ${i}`,
      longOutput: "",
      perfdata: [{ label: "i", value: i, uom: "", warn: "", crit: "" }],
      checkedAt: Date.now(),
      durationMs: 0,
      source: "passive",
    },
  };
}

async function until(what: string, cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The perfdata values a receiver got, in order of arrival. */
const values = (body: string): number[] =>
  body
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => (JSON.parse(l) as { value: number }).value);

/** A logger that keeps every line's message (and drops the fields). */
function keptLogger(lines: string[]): Logger {
  const line = (msg: string) => {
    lines.push(msg);
  };
  const l: Logger = { debug: line, info: line, warn: line, error: line, child: () => l };
  return l;
}

async function open(config: Config, thread: Partial<NonNullable<SinkSetOptions["thread"]>> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "lookout-sink-thread-"));
  dirs.push(dataDir);
  const core = await Core.open({ dataDir, config, clock: systemClock });
  const logged: string[] = [];
  const host = ConsumerHost.open({ dataDir, clock: systemClock, logger: keptLogger(logged) });
  const off = core.onCommitted(() => host.notify());
  const recorded: RecordedEvent[] = [];
  const sinks = new SinkSet(
    {
      host,
      clock: systemClock,
      dataDir,
      logger: keptLogger(logged),
      record: (e) => recorded.push(...e),
      thread: { priority: "normal", nice: 0, ...thread },
      minBackoffMs: 20,
      maxBackoffMs: 50,
    },
    config,
  );
  await sinks.start(config);
  let next = 0;
  return {
    dataDir,
    core,
    host,
    sinks,
    recorded,
    logged,
    /** Submits `n` more results (values counting on from the last) and waits until they are logged. */
    async submit(n: number): Promise<void> {
      for (let k = 0; k < n; k++) await core.submit([result(next++)]);
      await core.flush();
    },
    position: () => host.state.position("sink:out") ?? -1,
    async close() {
      await sinks.stop();
      off();
      await host.stop();
      await core.close();
    },
  };
}

describe("sinks on the sink thread", () => {
  it("delivers from the thread; the main thread stores each acknowledged position", async () => {
    const rx = await ndjsonReceiver();
    const s = await open(withSinks(httpSink(rx.url)));
    try {
      await s.submit(7);
      await until("7 points", () => values(rx.body()).length >= 7);
      assert.deepEqual(values(rx.body()), [0, 1, 2, 3, 4, 5, 6]);
      const end = s.host.lastSeq();
      await until("the position at the end", () => s.position() === end);
      assert.equal(s.host.status("sink:out")?.lagEvents, 0);
      // The counters come back from the thread for ListSinks and /metrics.
      await until("the counters", () => s.sinks.list()[0]?.stats.sent === 7);
    } finally {
      await s.close();
      await rx.stop();
    }
  });

  // Not leading: the thread's sinks stop (a retry loop against a dead backend too), their
  // positions hold, nothing is sent; leading again, they go on from the stored position.
  for (const backend of ["up", "down"] as const) {
    it(`pauses with the host while the backend is ${backend}, and resumes from the stored position`, async () => {
      const rx = await ndjsonReceiver();
      const s = await open(withSinks(httpSink(rx.url)));
      try {
        await s.submit(3);
        await until("3 points", () => values(rx.body()).length >= 3);
        if (backend === "down") {
          rx.fault("down");
          await s.submit(3);
          await until("a retry", () => rx.requests.length >= 3 && s.sinks.list()[0]?.stats.retrying === true);
        }
        // Paused once the batch in flight is done and its position stored: from then on, nothing.
        await s.host.setActive(false);
        const held = s.position();
        const requests = rx.requests.length;
        rx.fault("ok");
        await s.submit(3);
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(rx.requests.length, requests, "nothing sent while paused");
        assert.equal(s.position(), held, "the position held while paused");
        await s.host.setActive(true);
        const total = backend === "down" ? 9 : 6;
        await until("every point", () => new Set(values(rx.body())).size >= total);
        assert.deepEqual(
          [...new Set(values(rx.body()))].sort((a, b) => a - b),
          Array.from({ length: total }, (_, i) => i),
        );
        await until("the position at the end", () => s.position() === s.host.lastSeq());
      } finally {
        await s.close();
        await rx.stop();
      }
    });
  }

  it("a host that opens inactive runs the thread's sinks only once it leads", async () => {
    const rx = await ndjsonReceiver();
    const dataDir = mkdtempSync(join(tmpdir(), "lookout-sink-thread-"));
    dirs.push(dataDir);
    const config = withSinks(httpSink(rx.url));
    const core = await Core.open({ dataDir, config, clock: systemClock });
    const host = ConsumerHost.open({ dataDir, clock: systemClock, logger: silentLogger, active: false });
    const off = core.onCommitted(() => host.notify());
    const sinks = new SinkSet(
      {
        host,
        clock: systemClock,
        dataDir,
        logger: silentLogger,
        record: () => {},
        thread: { priority: "normal", nice: 0 },
      },
      config,
    );
    try {
      await sinks.start(config);
      for (let i = 0; i < 4; i++) await core.submit([result(i)]);
      await core.flush();
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(rx.requests.length, 0, "nothing sent before leading");
      await host.setActive(true);
      await until("4 points", () => values(rx.body()).length >= 4);
      assert.deepEqual(values(rx.body()), [0, 1, 2, 3]);
    } finally {
      await sinks.stop();
      off();
      await host.stop();
      await core.close();
      await rx.stop();
    }
  });

  it("a reload that changes a sink restarts it on the thread from its stored position", async () => {
    const rx1 = await ndjsonReceiver();
    const rx2 = await ndjsonReceiver();
    const s = await open(withSinks(httpSink(rx1.url)));
    try {
      await s.submit(4);
      await until("4 points at the first backend", () => values(rx1.body()).length >= 4);
      await s.sinks.applyConfig(withSinks(httpSink(rx2.url, { batchSize: 2 })));
      await s.submit(4);
      await until("4 points at the second backend", () => values(rx2.body()).length >= 4);
      assert.deepEqual(values(rx1.body()), [0, 1, 2, 3]);
      // Neither a gap nor a repeat: the changed sink went on from its stored position.
      assert.deepEqual(values(rx2.body()), [4, 5, 6, 7]);
      assert.ok(rx2.requests.length >= 2, "the new batch_size is in force");
      // Removed: stopped on the thread, its position forgotten.
      await s.sinks.applyConfig(withSinks());
      assert.equal(s.host.state.position("sink:out"), undefined);
      await s.submit(1);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(values(rx2.body()).length, 4);
    } finally {
      await s.close();
      await rx1.stop();
      await rx2.stop();
    }
  });

  it("a thread that dies is started again and its sinks go on from their stored positions", async () => {
    const rx = await ndjsonReceiver();
    const s = await open(withSinks(httpSink(rx.url)), {
      workerUrl: new URL("../../testing/dying-sink-worker.js", import.meta.url),
      restartMinMs: 50,
    });
    try {
      await s.submit(5);
      await until("5 points", () => values(rx.body()).length >= 5);
      await until("the position at the end", () => s.position() === s.host.lastSeq());
      // Logged by the main thread's host only (the thread's host keeps quiet about it).
      assert.equal(s.logged.filter((l) => l === "log consumer started").length, 1);
      for (const death of [1, 2]) {
        // The next wake kills the thread; the results it was woken for are sent by the next one.
        writeFileSync(join(s.dataDir, "die"), "");
        await s.submit(5);
        const total = 5 + 5 * death;
        await until(`every point after death ${death}`, () => new Set(values(rx.body())).size >= total);
        assert.deepEqual(
          [...new Set(values(rx.body()))].sort((a, b) => a - b),
          Array.from({ length: total }, (_, i) => i),
          "no point lost",
        );
        await until("the position at the end", () => s.position() === s.host.lastSeq());
        assert.equal(s.logged.filter((l) => l.startsWith("the sink thread was started again")).length, death);
        assert.equal(s.logged.filter((l) => l === "log consumer started").length, 1);
      }
      // At most the batch in flight is sent twice, and the counters go on from where they were.
      assert.ok(values(rx.body()).length <= 15 + 2 * 3, `points sent: ${values(rx.body()).length}`);
      await until("the counters", () => (s.sinks.list()[0]?.stats.sent ?? 0) >= 15);
      assert.equal(s.sinks.list()[0]?.stats.retrying, false);
    } finally {
      await s.close();
      await rx.stop();
    }
  });
});
