import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fleetConfig, fleetHost, fleetService } from "../core/fleet-config.js";
import { Core, type SubmittedCommand } from "../core/index.js";
import { loggedResultSeqs, parseLoggedSeqs, RESULT_ABOVE_FIELD, RESULT_SEQ_FIELD } from "./results-ingest.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A ProcessCheckResult as the results ingest submits it, the last of a batch marked with `seq`. */
function marked(i: number, seq?: number, above?: [number, number][]): SubmittedCommand {
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
  if (seq === undefined) return c as unknown as SubmittedCommand;
  const fields =
    above === undefined
      ? { [RESULT_SEQ_FIELD]: seq }
      : { [RESULT_SEQ_FIELD]: seq, [RESULT_ABOVE_FIELD]: above };
  return { ...c, ...fields } as unknown as SubmittedCommand;
}

describe("the results stream position kept in the log", () => {
  it("is the set the newest (compressed) command row records; none in a fresh or empty log", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lookout-zone-seq-"));
    dirs.push(dir);
    assert.equal(loggedResultSeqs(dir), undefined, "no log yet");
    const core = await Core.open({ dataDir: dir, config: fleetConfig({ hosts: 1, servicesPerHost: 2 }) });
    try {
      assert.equal(loggedResultSeqs(dir), undefined, "an empty log");
      await core.submit([marked(0), marked(1, 41)]);
      await core.flush();
      assert.deepEqual(
        loggedResultSeqs(dir),
        { floor: 41, above: [] },
        "a record without ranges (as older logs have)",
      );
      await core.submit([marked(2), marked(3, 44, [[50, 57]])]);
      await core.submit([marked(4)]);
      await core.flush();
      assert.deepEqual(loggedResultSeqs(dir), { floor: 44, above: [[50, 57]] });
    } finally {
      // A clean stop snapshots and drops the applied commands: the position then lives in
      // consumers.db, which the ingest saves on stop (the log is what a crash leaves).
      await core.close();
    }
  });
});

describe("the stored form of the logged set", () => {
  it("reads JSON, a bare number as written before ranges, and nothing from garbage", () => {
    assert.deepEqual(parseLoggedSeqs('{"floor":3,"above":[[5,6]]}'), { floor: 3, above: [[5, 6]] });
    assert.deepEqual(parseLoggedSeqs("1234"), { floor: 1234, above: [] });
    assert.equal(parseLoggedSeqs(undefined), undefined);
    assert.equal(parseLoggedSeqs("{"), undefined);
    assert.equal(parseLoggedSeqs('{"above":[]}'), undefined);
  });
});
