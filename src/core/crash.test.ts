import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { openEventLogReader } from "../store/event-log.js";
import { replayProjection } from "../store/replay.js";
import { Core } from "./core.js";
import { CRASH_FLEET } from "./crash-harness.js";
import { fleetConfig } from "./fleet-config.js";

const harness = fileURLToPath(new URL("./crash-harness.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "lookout-crash-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the harness until it has acknowledged `acks` batches, then kills it with SIGKILL. */
function runAndKill(first: number, acks: number): Promise<Set<number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [harness, dir, "4", String(first)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const acked = new Set<number>();
    let buf = "";
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split("\n");
      buf = lines.pop() ?? "";
      for (const line of lines) {
        const m = /^ok (\d+)$/.exec(line);
        if (m) acked.add(Number(m[1]));
      }
      if (acked.size >= acks && child.exitCode === null && !child.killed) child.kill("SIGKILL");
    });
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") resolve(acked);
      else reject(new Error(`harness exited with ${code}: ${stderr}`));
    });
  });
}

describe("crash recovery", () => {
  it("applies every acknowledged batch after SIGKILL, and the projection equals a fresh replay", async () => {
    const acked = new Set<number>();
    // Three kills at different depths: before the first snapshot, around it, well past it.
    for (const [round, acks] of [
      [0, 15],
      [1, 60],
      [2, 140],
    ] as const) {
      for (const n of await runAndKill(round * 1_000_000, acks)) acked.add(n);
    }
    assert.ok(acked.size >= 215);

    const core = await Core.open({ dataDir: dir, config: fleetConfig(CRASH_FLEET) });
    try {
      await core.flush();
      const seen = new Set<number>();
      const reader = openEventLogReader(dir);
      try {
        for (let afterSeq = 0; ; ) {
          const events = reader.eventsAfter(afterSeq, 5000);
          if (events.length === 0) break;
          for (const e of events) {
            if (e.event.type === "CheckResultProcessed") {
              seen.add(Number(e.event.result.output.replace("batch ", "")));
            }
          }
          afterSeq = (events[events.length - 1] as { seq: number }).seq;
        }
      } finally {
        reader.close();
      }
      const lost = [...acked].filter((n) => !seen.has(n));
      assert.deepEqual(lost, [], "every acknowledged batch was applied");
      assert.deepEqual(core.view.projection.snapshot(), replayProjection(dir));
    } finally {
      await core.close();
    }
  });
});
