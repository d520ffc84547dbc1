import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { Command } from "../model/commands.js";
import type { ExitStatus } from "../model/state.js";
import { createProjection, type Projection } from "../store/projection.js";
import { DEFAULT_WRITER_OPTIONS } from "../store/protocol.js";
import { replayProjection } from "../store/replay.js";
import { Writer } from "../store/writer.js";
import { engineMachines } from "./engine-machines.js";
import { fleetConfig } from "./fleet-config.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 0, 1);
const config = fleetConfig({ hosts: 2, servicesPerHost: 2, maxAttempts: 3 });

function batch(at: number, service: string, exitStatus: ExitStatus): { at: number; body: string } {
  const c: Command = {
    type: "ProcessCheckResult",
    at,
    result: {
      host: "host-00000",
      service,
      exitStatus,
      output: `s${exitStatus}`,
      longOutput: "",
      perfdata: [],
      checkedAt: at,
      durationMs: 0,
      source: "passive",
    },
  };
  return { at, body: JSON.stringify([c]) };
}

interface Case {
  readonly name: string;
  /** What happens before the "crash" (Writer.close without a final snapshot). */
  run(w: Writer, reader: Projection): void;
  readonly replayed: number;
  readonly applied: number;
  /** svc-000 after one more CRITICAL result following the restart. */
  readonly afterOneMore: { state: string; stateType: string; attempt: number };
}

const cases: Case[] = [
  {
    name: "crash after enqueue, before apply: the enqueued commands are applied on open",
    run(w) {
      w.enqueue([batch(T0 + 1000, "svc-000", 2), batch(T0 + 2000, "svc-000", 2)]);
    },
    // The first open's ApplyConfig was applied before the crash.
    replayed: 1,
    applied: 2,
    afterOneMore: { state: "CRITICAL", stateType: "HARD", attempt: 3 },
  },
  {
    name: "snapshot, then a tail: the tail is re-applied to the restored engine",
    run(w, reader) {
      w.enqueue([batch(T0 + 1000, "svc-000", 2)]);
      apply(w, reader);
      // The snapshot protocol: the writer's part now, the reader's projection at the same point.
      const start = w.beginSnapshot();
      w.finishSnapshot(start, JSON.stringify(reader.snapshot()));
      w.enqueue([batch(T0 + 2000, "svc-000", 2)]);
      apply(w, reader);
    },
    replayed: 1,
    applied: 0,
    afterOneMore: { state: "CRITICAL", stateType: "HARD", attempt: 3 },
  },
  {
    name: "no snapshot: the whole log is re-applied",
    run(w, reader) {
      w.enqueue([batch(T0 + 1000, "svc-000", 2)]);
      apply(w, reader);
    },
    replayed: 2,
    applied: 0,
    afterOneMore: { state: "CRITICAL", stateType: "SOFT", attempt: 2 },
  },
];

/** What the reader thread does with the writer's deltas. */
function apply(w: Writer, reader: Projection): void {
  const d = w.applyPending();
  if (d !== undefined) reader.applyDelta(d);
}

describe("Writer recovery", () => {
  for (const c of cases) {
    it(c.name, () => {
      const dir = mkdtempSync(join(tmpdir(), "lookout-writer-"));
      dirs.push(dir);
      const first = Writer.open(dir, config, T0, engineMachines);
      c.run(first, createProjection(first.takeInitialProjection()));
      first.close();

      const w = Writer.open(dir, config, T0 + 5000, engineMachines);
      try {
        const { replayed, applied } = w.recovered;
        assert.deepEqual({ replayed, applied }, { replayed: c.replayed, applied: c.applied });
        const reader = createProjection(w.takeInitialProjection());
        assert.deepEqual(reader.snapshot(), replayProjection(dir));
        const configs = w.eventsAfter(0, 100_000).filter((e) => e.event.type === "ConfigApplied");
        assert.equal(configs.length, 1, "an unchanged config is not applied again");
        w.enqueue([batch(T0 + 10_000, "svc-000", 2)]);
        apply(w, reader);
        const s = reader.status("host-00000!svc-000");
        assert.deepEqual({ state: s?.state, stateType: s?.stateType, attempt: s?.attempt }, c.afterOneMore);
        assert.deepEqual(reader.snapshot(), replayProjection(dir));
      } finally {
        w.close();
      }
    });
  }
});

describe("Writer snapshot after a recovery that replayed many events", () => {
  // A crash loop: results logged, the writer "killed" (closed without a snapshot) and opened again,
  // twice. The first reopen replays them all; whether it snapshots decides what the second replays.
  const table: {
    name: string;
    bound: number;
    /** What the first reopen recovered and whether it snapshotted; what the second replayed. */
    first: { events: number; snapshot: boolean };
    second: { replayed: number; events: number };
  }[] = [
    {
      name: "over the bound: snapshot, the next start replays nothing",
      bound: 10,
      first: { events: 48, snapshot: true },
      second: { replayed: 0, events: 0 },
    },
    {
      name: "under the bound: no snapshot, the next start replays the same",
      bound: 1000,
      first: { events: 48, snapshot: false },
      second: { replayed: 21, events: 48 },
    },
    {
      name: "0: never",
      bound: 0,
      first: { events: 48, snapshot: false },
      second: { replayed: 21, events: 48 },
    },
  ];
  for (const c of table) {
    it(c.name, () => {
      const dir = mkdtempSync(join(tmpdir(), "lookout-writer-"));
      dirs.push(dir);
      const options = { ...DEFAULT_WRITER_OPTIONS, snapshotAfterReplayEvents: c.bound };
      const w0 = Writer.open(dir, config, T0, engineMachines, options);
      const reader0 = createProjection(w0.takeInitialProjection());
      for (let i = 1; i <= 20; i++) {
        w0.enqueue([batch(T0 + i * 1000, "svc-001", (i % 3) as ExitStatus)]);
        apply(w0, reader0);
      }
      w0.close();
      const w1 = Writer.open(dir, config, T0 + 60_000, engineMachines, options);
      const { events, snapshot } = w1.recovered;
      assert.deepEqual({ events, snapshot }, c.first);
      assert.deepEqual(createProjection(w1.takeInitialProjection()).snapshot(), replayProjection(dir));
      w1.close();
      const w2 = Writer.open(dir, config, T0 + 70_000, engineMachines, options);
      try {
        const { replayed, events: again } = w2.recovered;
        assert.deepEqual({ replayed, events: again }, c.second);
        assert.deepEqual(createProjection(w2.takeInitialProjection()).snapshot(), replayProjection(dir));
      } finally {
        w2.close();
      }
    });
  }
});

describe("Writer and unparsed plugin output", () => {
  it("parses it on the writer, live and when applying what a crash left enqueued", () => {
    const dir = mkdtempSync(join(tmpdir(), "lookout-writer-"));
    dirs.push(dir);
    const unparsed = (at: number, output: string): { at: number; body: string } => ({
      at,
      body: JSON.stringify([
        {
          type: "ProcessCheckResult",
          parse: true,
          result: {
            host: "host-00001",
            exitStatus: 2,
            output,
            checkedAt: at,
            durationMs: 0,
            source: "passive",
          },
        },
      ]),
    });
    const first = Writer.open(dir, config, T0, engineMachines);
    const reader = createProjection(first.takeInitialProjection());
    first.enqueue([unparsed(T0 + 1000, "DOWN - no route | rta=12ms;100;200;0\nhop 1\nhop 2")]);
    apply(first, reader);
    assert.deepEqual(
      [reader.status("host-00001")?.output, reader.status("host-00001")?.longOutput],
      ["DOWN - no route", "hop 1\nhop 2"],
    );
    assert.deepEqual(reader.status("host-00001")?.perfdata, [
      { label: "rta", value: 12, uom: "ms", warn: "100", crit: "200", min: 0 },
    ]);
    // Enqueued, never applied: the next open applies (and parses) it.
    first.enqueue([unparsed(T0 + 2000, "DOWN - still | pl=100%")]);
    first.close();
    const w = Writer.open(dir, config, T0 + 5000, engineMachines);
    try {
      const { replayed, applied } = w.recovered;
      assert.deepEqual({ replayed, applied }, { replayed: 2, applied: 1 });
      const again = createProjection(w.takeInitialProjection());
      assert.equal(again.status("host-00001")?.output, "DOWN - still");
      assert.deepEqual(again.status("host-00001")?.perfdata, [
        { label: "pl", value: 100, uom: "%", warn: "", crit: "" },
      ]);
      assert.deepEqual(again.snapshot(), replayProjection(dir));
    } finally {
      w.close();
    }
  });
});

describe("Writer data directory", () => {
  it("refuses a second writer while the first is open, and takes over a dead owner's lock", () => {
    const dir = mkdtempSync(join(tmpdir(), "lookout-writer-"));
    dirs.push(dir);
    const w = Writer.open(dir, config, T0, engineMachines);
    assert.throws(() => Writer.open(dir, config, T0, engineMachines), /is in use by process \d+/);
    w.close();
    // A lock left by a process that no longer exists (pid 2^22 + 1 is above Linux's pid_max).
    writeFileSync(join(dir, "lookout.lock"), "4194305\n");
    Writer.open(dir, config, T0, engineMachines).close();
  });

  it("keeps only retainEvents events behind the newest snapshot", () => {
    const dir = mkdtempSync(join(tmpdir(), "lookout-writer-"));
    dirs.push(dir);
    const w = Writer.open(dir, config, T0, engineMachines, { ...DEFAULT_WRITER_OPTIONS, retainEvents: 3 });
    try {
      const reader = createProjection(w.takeInitialProjection());
      for (let i = 1; i <= 5; i++) w.enqueue([batch(T0 + i * 1000, "svc-001", (i % 2) as ExitStatus)]);
      apply(w, reader);
      const before = w.eventsAfter(0, 1000);
      const last = before[before.length - 1]?.seq ?? 0;
      const start = w.beginSnapshot();
      w.finishSnapshot(start, JSON.stringify(reader.snapshot()));
      const after = w.eventsAfter(0, 1000);
      assert.ok(after.length < before.length, "old events were dropped");
      assert.ok((after[0]?.seq ?? 0) <= last - 2, "at least the newest 3 are kept");
      assert.equal(after[after.length - 1]?.seq, last);
    } finally {
      w.close();
    }
  });
});
