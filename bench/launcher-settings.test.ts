import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { memorySettings } from "../src/app/memory-settings.js";
import { describeSettings, launcherSettings, parseLauncherLine } from "./launcher-settings.js";

describe("the launcher's settings, as the benchmarks start their harness server", () => {
  it("reads environment and node flags from an env -S line", () => {
    const s = parseLauncherLine("#!/usr/bin/env -S A=1 B=two node --x=1 --y");
    assert.deepEqual(s, { env: { A: "1", B: "two" }, nodeArgs: ["--x=1", "--y"] });
    assert.equal(describeSettings(s), "A=1 B=two --x=1 --y");
    assert.equal(describeSettings({ env: {}, nodeArgs: [] }), "none");
  });

  it("rejects a line that is not env -S ... node", () => {
    assert.throws(() => parseLauncherLine("#!/usr/bin/env node"), /not an "env -S/);
    assert.throws(() => parseLauncherLine("#!/usr/bin/env -S FOO node"), /NAME=value/);
  });

  it("gives the harness what bin/lookout.js gives the server", () => {
    const s = launcherSettings();
    // What the server reports in its "listening" line when started with these settings.
    const reported = memorySettings(s.nodeArgs, s.env);
    assert.equal(reported.maxSemiSpaceMiB, 1);
    assert.equal(reported.mallocArenaMax, 2);
    assert.equal(reported.singleThreadedGc, true);
  });
});
