import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { inflateRawSync } from "node:zlib";
import type { CheckResult } from "../model/check-result.js";
import type { Config } from "../model/config.js";
import type { ExitStatus } from "../model/state.js";
import { RejectedError } from "../store/errors.js";
import { createProjection, type ProjectionSnapshot } from "../store/projection.js";
import { DEFAULT_WRITER_OPTIONS } from "../store/protocol.js";
import { listHistory, listStatus } from "../store/read-model.js";
import { replayProjection } from "../store/replay.js";
import { Database } from "../store/sqlite.js";
import { FakeClock } from "../testing/fake-clock.js";
import { Core } from "./core.js";
import { fleetConfig } from "./fleet-config.js";
import type { CommandInput } from "./validate.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "lookout-core-"));
  dirs.push(d);
  return d;
}

function result(
  host: string,
  service: string | undefined,
  exitStatus: number,
  checkedAt: number,
): CommandInput {
  const r: CheckResult = {
    host,
    ...(service === undefined ? {} : { service }),
    exitStatus: exitStatus as ExitStatus,
    output: `status ${exitStatus}`,
    longOutput: "",
    perfdata: [{ label: "load", value: exitStatus, uom: "", warn: "", crit: "" }],
    checkedAt,
    durationMs: 0,
    source: "passive",
  };
  return { type: "ProcessCheckResult", result: r };
}

const config = fleetConfig({ hosts: 4, servicesPerHost: 3, maxAttempts: 1 });

describe("Core", () => {
  it("applies submitted results and serves them from the projection", async () => {
    const clock = new FakeClock();
    const core = await Core.open({ dataDir: tempDir(), config, clock });
    try {
      await core.submit([
        result("host-00000", "svc-000", 2, clock.now()),
        result("host-00001", undefined, 0, clock.now()),
      ]);
      await core.flush();
      const { index, projection } = core.view;
      const page = listStatus(index, projection, { host: "host-00000", pageSize: 10 });
      assert.deepEqual(
        page.items.map((v) => [v.entry.key, v.status?.state ?? "PENDING"]),
        [
          ["host-00000", "PENDING"],
          ["host-00000!svc-000", "CRITICAL"],
          ["host-00000!svc-001", "PENDING"],
          ["host-00000!svc-002", "PENDING"],
        ],
      );
      assert.equal(projection.status("host-00000!svc-000")?.output, "status 2");
      assert.equal(projection.status("host-00001")?.state, "UP");
      const feed = listHistory(projection, { pageSize: 10 });
      assert.deepEqual(
        feed.items.map((h) => [h.kind, h.key, h.state]),
        [
          ["StateChange", "host-00001", "UP"],
          ["StateChange", "host-00000!svc-000", "CRITICAL"],
        ],
      );
    } finally {
      await core.close();
    }
  });

  const rejections: {
    name: string;
    batch: CommandInput[];
    reason: string;
    message: RegExp;
    index: number;
  }[] = [
    {
      name: "unknown host",
      batch: [result("nope", undefined, 0, 1)],
      reason: "not_found",
      message: /host "nope" is not configured/,
      index: 0,
    },
    {
      name: "unknown service, second in batch",
      batch: [result("host-00000", "svc-000", 0, 1), result("host-00000", "http", 0, 1)],
      reason: "not_found",
      message: /service "http" is not configured on host "host-00000"/,
      index: 1,
    },
    {
      name: "bad exit status",
      batch: [result("host-00000", "svc-000", 7, 1)],
      reason: "invalid",
      message: /exit status 7/,
      index: 0,
    },
    {
      name: "bad selector",
      batch: [
        {
          type: "AcknowledgeProblem",
          target: { selector: "env in ()" },
          sticky: false,
          author: "a",
          comment: "",
        },
      ],
      reason: "invalid",
      message: /column 9/,
      index: 0,
    },
    {
      name: "unknown downtime",
      batch: [{ type: "DeleteDowntime", id: "dt-nope" }],
      reason: "not_found",
      message: /downtime "dt-nope" does not exist/,
      index: 0,
    },
    {
      name: "downtime ending before it starts",
      batch: [
        {
          type: "ScheduleDowntime",
          target: { object: { host: "host-00000" } },
          start: Date.UTC(2026, 0, 2),
          end: Date.UTC(2026, 0, 1, 12),
          author: "a",
          comment: "",
        },
      ],
      reason: "invalid",
      message: /ends before it starts/,
      index: 0,
    },
  ];

  it("runs the writer and its decoding thread at a lower CPU priority than the thread that serves reads (idle)", async () => {
    assert.equal(DEFAULT_WRITER_OPTIONS.priority, "idle");
    // Nice value and scheduling policy (SCHED_IDLE is 5) of a thread's stat line.
    const schedOf = (stat: string): string => {
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return `${f[16]}/${f[38]}`;
    };
    const threads = (): string[] =>
      readdirSync("/proc/self/task").map((t) => schedOf(readFileSync(`/proc/self/task/${t}/stat`, "utf8")));
    const own = schedOf(readFileSync("/proc/thread-self/stat", "utf8"));
    const idle = `${own.split("/")[0]}/5`;
    const before = threads().filter((s) => s === idle).length;
    const core = await Core.open({ dataDir: tempDir(), config, writer: { priority: "idle" } });
    try {
      assert.equal(threads().filter((s) => s === idle).length, before + 1);
      assert.equal(schedOf(readFileSync("/proc/thread-self/stat", "utf8")), own, "this thread keeps its own");
      // The writer's decoding thread starts with the first batch and lowers its own soon after.
      const results = Array.from({ length: 100 }, (_, i) => ({ host: `host-0000${i % 4}`, output: "OK" }));
      const batch = new TextEncoder().encode(JSON.stringify({ results }));
      assert.ok(batch.byteLength >= 2048, "a body the decoding thread takes");
      assert.equal((await core.submitEncoded("results-json", batch)).kind, "enqueued");
      for (let i = 0; i < 100 && threads().filter((s) => s === idle).length < before + 2; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(threads().filter((s) => s === idle).length, before + 2);
      assert.equal(schedOf(readFileSync("/proc/thread-self/stat", "utf8")), own, "this thread keeps its own");
    } finally {
      await core.close();
    }
  });

  // [young generation option (MiB, 0: V8's default), the most new space the writer may have after
  // 20,000 results (MiB), the least]. V8 makes a young generation of three semi-spaces; its new
  // space is two of them, and by default it grows from 1 to 16 MiB semi-spaces under load.
  const youngCases: [number, number, number][] = [
    [6, 4, 0],
    [0, Number.POSITIVE_INFINITY, 4],
  ];
  for (const [youngGenerationMb, most, least] of youngCases) {
    it(`gives the writer thread a young generation of ${youngGenerationMb || "V8's default"} MiB`, async () => {
      const fleet = fleetConfig({ hosts: 100, servicesPerHost: 10 });
      const core = await Core.open({ dataDir: tempDir(), config: fleet, writer: { youngGenerationMb } });
      try {
        for (let b = 0; b < 20; b++) {
          const batch: CommandInput[] = [];
          for (let k = 0; k < 1000; k++) {
            const host = `host-${String(k % 100).padStart(5, "0")}`;
            batch.push(result(host, `svc-${String(Math.floor(k / 100)).padStart(3, "0")}`, (b + k) % 4, b));
          }
          await core.submit(batch);
        }
        await core.flush();
        const newSpace = ((await core.writerStats()).spaces.new_space?.size ?? 0) / 1048576;
        assert.ok(newSpace <= most && newSpace >= least, `new space ${newSpace} MiB`);
      } finally {
        await core.close();
      }
    });
  }

  it("rejects bad batches whole, before enqueueing anything", async () => {
    const core = await Core.open({ dataDir: tempDir(), config, clock: new FakeClock() });
    try {
      for (const c of rejections) {
        await assert.rejects(core.submit(c.batch), (e: unknown) => {
          assert.ok(e instanceof RejectedError, c.name);
          assert.equal(e.reason, c.reason, c.name);
          assert.match(e.message, c.message, c.name);
          assert.equal(e.index, c.index, c.name);
          return true;
        });
      }
      await core.flush();
      assert.equal(core.view.projection.size(), 0, "no result of a rejected batch was applied");
    } finally {
      await core.close();
    }
  });

  it("tells a submitter when its batch is visible, in submit order, without flush", async () => {
    const clock = new FakeClock();
    const core = await Core.open({ dataDir: tempDir(), config, clock });
    try {
      const seen: string[] = [];
      const all: Promise<void>[] = [];
      for (let i = 0; i < 20; i++) {
        const key = `host-0000${i % 4}!svc-00${i % 3}`;
        const [host, service] = key.split("!") as [string, string];
        all.push(
          new Promise<void>((resolve) => {
            void core.submit([result(host, service, i % 4, clock.now() + i)], {
              onVisible: () => {
                // Visible: the projection shows this batch's result, or a later one of the object.
                const s = core.view.projection.status(key);
                seen.push(`${i}:${(s?.lastCheck ?? 0) >= clock.now() + i ? "shown" : "missing"}`);
                resolve();
              },
            });
          }),
        );
      }
      await Promise.all(all);
      assert.deepEqual(
        seen,
        Array.from({ length: 20 }, (_, i) => `${i}:shown`),
      );
    } finally {
      await core.close();
    }
  });

  it("knows an issued downtime id until the projection shows it, and not after it is deleted", async () => {
    const clock = new FakeClock();
    const core = await Core.open({ dataDir: tempDir(), config, clock });
    try {
      const id = core.newDowntimeId();
      const schedule: CommandInput = {
        type: "ScheduleDowntime",
        id,
        target: { object: { host: "host-00001" } },
        start: clock.now(),
        end: clock.now() + 60_000,
        author: "ops",
        comment: "",
      };
      // Deletable at once (issued, not yet applied), and after it is visible (in the projection).
      await Promise.all([core.submit([schedule]), core.submit([{ type: "DeleteDowntime", id }])]);
      await core.flush();
      assert.equal(core.view.projection.downtime(id), undefined);
      await assert.rejects(core.submit([{ type: "DeleteDowntime", id }]), /does not exist/);
      const again = core.newDowntimeId();
      await core.submit([{ ...schedule, id: again }]);
      await core.flush();
      assert.ok(core.view.projection.downtime(again));
      await core.submit([{ type: "DeleteDowntime", id: again }]);
      await core.flush();
      await assert.rejects(core.submit([{ type: "DeleteDowntime", id: again }]), /does not exist/);
    } finally {
      await core.close();
    }
  });

  it("survives a restart and equals a fresh replay of the log", async () => {
    const dir = tempDir();
    const clock = new FakeClock();
    const core = await Core.open({ dataDir: dir, config, clock });
    const id = core.newDowntimeId();
    await core.submit([result("host-00002", "svc-001", 1, clock.now())]);
    await core.submit([
      {
        type: "ScheduleDowntime",
        id,
        target: { selector: "env=prod" },
        start: clock.now(),
        end: clock.now() + 3_600_000,
        author: "ops",
        comment: "patching",
      },
    ]);
    await core.flush();
    const before = core.view.projection.snapshot();
    assert.equal(before.downtimes.length, 1);
    await core.close();

    const again = await Core.open({ dataDir: dir, config, clock });
    try {
      assert.deepEqual(again.view.projection.snapshot(), before);
      assert.deepEqual(replayProjection(dir), before);
      assert.equal(again.view.projection.status("host-00002")?.inDowntime, true);
    } finally {
      await again.close();
    }
  });

  it("takes snapshots under ingestion that equal a fresh replay up to their event", async () => {
    const dir = tempDir();
    const fleet = fleetConfig({ hosts: 100, servicesPerHost: 10 });
    const core = await Core.open({ dataDir: dir, config: fleet, writer: { snapshotEveryEvents: 3_000 } });
    try {
      const submitted: Promise<void>[] = [];
      for (let b = 0; b < 24; b++) {
        const batch: CommandInput[] = [];
        for (let k = 0; k < 1000; k++) {
          const host = `host-${String(k % 100).padStart(5, "0")}`;
          batch.push(result(host, `svc-${String(Math.floor(k / 100)).padStart(3, "0")}`, (b + k) % 4, b));
        }
        submitted.push(core.submit(batch));
      }
      await Promise.all(submitted);
      await core.flush();
      // A snapshot is written once the reader has handed over its records, in steps of their own,
      // so one asked for during the last batches may land after flush(): wait for it, bounded.
      const readSnapshots = (): { eventSeq: number; body: Buffer }[] => {
        const db = new Database(join(dir, "lookout.db"), { readonly: true });
        try {
          return db.prepare("SELECT event_seq AS eventSeq, body FROM snapshots").all() as {
            eventSeq: number;
            body: Buffer;
          }[];
        } finally {
          db.close();
        }
      };
      let rows = readSnapshots();
      for (const deadline = Date.now() + 20_000; rows.length === 0 && Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 50));
        rows = readSnapshots();
      }
      assert.ok(rows.length > 0, "snapshots were taken");
      for (const r of rows) {
        const { projection } = JSON.parse(inflateRawSync(r.body).toString()) as {
          projection: ProjectionSnapshot;
        };
        assert.equal(projection.eventSeq, r.eventSeq);
        assert.deepEqual(
          createProjection(projection).snapshot(),
          replayProjection(dir, undefined, r.eventSeq),
        );
      }
    } finally {
      await core.close();
    }
  });

  it("drives engine timers with the injected clock: a downtime starts and ends on time", async () => {
    const clock = new FakeClock();
    const core = await Core.open({ dataDir: tempDir(), config, clock });
    try {
      const start = clock.now() + 60_000;
      await core.submit([
        {
          type: "ScheduleDowntime",
          id: core.newDowntimeId(),
          target: { object: { host: "host-00001" } },
          start,
          end: start + 60_000,
          author: "ops",
          comment: "",
        },
      ]);
      await core.flush();
      const inDowntime = (): boolean | undefined => core.view.projection.status("host-00001")?.inDowntime;
      assert.notEqual(inDowntime(), true, "not before its start");
      clock.advance(60_000);
      await core.flush();
      assert.equal(inDowntime(), true, "started by a Tick at its start");
      clock.advance(60_000);
      await core.flush();
      assert.equal(inDowntime(), false, "ended by a Tick at its end");
      const kinds = listHistory(core.view.projection, { host: "host-00001", pageSize: 10 }).items.map(
        (h) => h.kind,
      );
      assert.deepEqual(kinds, ["DowntimeEnded", "DowntimeStarted", "DowntimeScheduled"]);
    } finally {
      await core.close();
    }
  });

  /** [how, applyConfig as the app may call it]. */
  const reloads: [string, (core: Core, c: Config) => Promise<void>][] = [
    ["as is", (core, c) => core.applyConfig(c)],
    ["prepared first", async (core, c) => core.applyConfig(await core.prepareConfig(c))],
  ];
  for (const [how, reload] of reloads) {
    it(`reloads ${how}: unchanged objects keep state, removed go, new ones are PENDING`, async () => {
      const clock = new FakeClock();
      const core = await Core.open({ dataDir: tempDir(), config, clock });
      try {
        await core.submit([
          result("host-00000", "svc-000", 2, clock.now()),
          result("host-00003", undefined, 2, clock.now()),
        ]);
        await core.flush();
        const bigger = fleetConfig({ hosts: 3, servicesPerHost: 4, maxAttempts: 1 });
        const applied = reload(core, bigger);
        if (how === "prepared first") {
          assert.equal(
            core.view.index.position("host-00000!svc-003"),
            undefined,
            "preparing changes nothing",
          );
        }
        await applied;
        await core.flush();
        const { index, projection } = core.view;
        assert.equal(projection.status("host-00000!svc-000")?.state, "CRITICAL");
        assert.equal(projection.status("host-00003"), undefined);
        assert.equal(index.position("host-00003"), undefined);
        const added = listStatus(index, projection, { host: "host-00000", service: "svc-003", pageSize: 1 });
        assert.equal(added.items[0]?.status, undefined, "new service is PENDING");
        await assert.rejects(core.submit([result("host-00003", undefined, 0, clock.now())]), RejectedError);
        await core.submit([result("host-00002", "svc-003", 2, clock.now())]);
        await core.flush();
        assert.equal(core.view.projection.status("host-00002!svc-003")?.state, "CRITICAL");
      } finally {
        await core.close();
      }
    });
  }
});
