import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fleetConfig, fleetHost, fleetService } from "../core/fleet-config.js";
import { Core, type SubmittedCommand } from "../core/index.js";
import { loggedResultSeq, RESULT_SEQ_FIELD } from "./results-ingest.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A ProcessCheckResult as the results ingest submits it, the last of a batch marked with `seq`. */
function marked(i: number, seq?: number): SubmittedCommand {
  const c = {
    type: "ProcessCheckResult",
    result: {
      host: fleetHost(0),
      service: fleetService(i % 2),
      exitStatus: 0,
      output: `from a worker ${i}`,
      longOutput: "",
      perfdata: [],
      checkedAt: Date.now() - 1000 + i,
      durationMs: 1,
      source: "active",
    },
  };
  return (seq === undefined ? c : { ...c, [RESULT_SEQ_FIELD]: seq }) as unknown as SubmittedCommand;
}

describe("the results stream position kept in the log", () => {
  it("is the highest sequence the logged (compressed) commands carry; none in a fresh or empty log", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lookout-zone-seq-"));
    dirs.push(dir);
    assert.equal(loggedResultSeq(dir), undefined, "no log yet");
    const core = await Core.open({ dataDir: dir, config: fleetConfig({ hosts: 1, servicesPerHost: 2 }) });
    try {
      assert.equal(loggedResultSeq(dir), undefined, "an empty log");
      await core.submit([marked(0), marked(1, 41)]);
      await core.submit([marked(2), marked(3, 57)]);
      await core.submit([marked(4)]);
      await core.flush();
      assert.equal(loggedResultSeq(dir), 57);
    } finally {
      // A clean stop snapshots and drops the applied commands: the position then lives in
      // consumers.db, which the ingest saves on stop (the log is what a crash leaves).
      await core.close();
    }
  });
});
