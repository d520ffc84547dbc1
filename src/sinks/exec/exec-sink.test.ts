import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { eventsFromNdjson, pointsFromNdjson, runSinkContract } from "../contract.case.js";
import { createExecSink } from "./exec-sink.js";

/** A receiver script: appends stdin to $1 unless the mode file $2 says to misbehave. */
const SCRIPT = `mode=$(cat "$2" 2>/dev/null || echo ok)
case "$mode" in
  down) cat >/dev/null; echo "backend down" >&2; exit 1 ;;
  garbage) cat >/dev/null; printf 'zz\\001%%garbage'; exit 3 ;;
  slow) sleep 0.3 ;;
esac
cat >> "$1"
`;

runSinkContract({
  type: "exec",
  async backend(_name, dir) {
    const script = join(dir, "receive.sh");
    const out = join(dir, "received.ndjson");
    const modeFile = join(dir, "mode");
    writeFileSync(script, SCRIPT);
    writeFileSync(out, "");
    const read = (): string => readFileSync(out, "utf8");
    return {
      fields: { command: ["/bin/sh", script, out, modeFile] },
      readPoints: async () => pointsFromNdjson(read()),
      readEvents: async () => eventsFromNdjson(read()),
      fault: (m) => writeFileSync(modeFile, m),
      faults: ["down", "slow", "garbage"],
      async stop() {},
    };
  },
});

describe("exec sink", () => {
  const batch = { records: [], firstSeq: 1, lastSeq: 1 };
  it("retries a non-zero exit, a timeout and a missing program; exit 0 delivers", async () => {
    const signal = new AbortController().signal;
    const cases: [string[], string, RegExp | undefined][] = [
      [["/bin/true"], "delivered", undefined],
      [["/bin/sh", "-c", "echo nope >&2; exit 4"], "retry", /exited 4: nope/],
      [["/bin/sleep", "5"], "retry", /timed out/],
      [["/nonexistent/program"], "retry", /ENOENT/],
    ];
    for (const [command, kind, error] of cases) {
      const r = await createExecSink({ command, timeoutMs: 300 }).send(batch, signal);
      assert.equal(r.kind, kind, command.join(" "));
      if (error !== undefined) assert.match(r.kind === "retry" ? r.error : "", error);
    }
  });
});
