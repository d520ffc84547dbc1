import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { systemClock } from "../../model/clock.js";
import { eventsFromNdjson, pointsFromNdjson, runSinkContract } from "../contract.case.js";
import type { MetricPoint, SinkBatch } from "../sink.js";
import { createFileSink } from "./file-sink.js";

const readAll = (dir: string): string =>
  readdirSync(dir)
    .filter((f) => f.startsWith("out.ndjson"))
    .sort((a, b) => (a === "out.ndjson" ? 1 : b === "out.ndjson" ? -1 : a < b ? -1 : 1))
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("");

runSinkContract({
  type: "file",
  async backend(_name, dir) {
    const path = join(dir, "out", "out.ndjson");
    const read = (): string => {
      try {
        return readAll(join(dir, "out"));
      } catch {
        return "";
      }
    };
    const blocker = join(dir, "out");
    return {
      fields: { path, rotateBytes: 600 },
      readPoints: async () => pointsFromNdjson(read()),
      readEvents: async () => eventsFromNdjson(read()),
      // Down: a regular file where the sink's directory should be (ENOTDIR), removed to recover.
      fault(m) {
        if (m === "down") writeFileSync(blocker, "");
        else rmSync(blocker, { force: true });
      },
      faults: ["down"],
      async stop() {},
    };
  },
});

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function point(i: number): MetricPoint {
  return {
    kind: "metric",
    seq: i,
    time: i,
    host: "h",
    service: "s",
    zone: "",
    labels: {},
    name: "x",
    value: i,
    unit: "",
    warn: "",
    crit: "",
  };
}
const batch = (from: number, n: number): SinkBatch => ({
  records: Array.from({ length: n }, (_, k) => point(from + k)),
  firstSeq: from,
  lastSeq: from + n - 1,
});

describe("file sink", () => {
  it("cuts a torn last line on open, so a crash mid-write never leaves half a record", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lookout-file-sink-"));
    dirs.push(dir);
    const path = join(dir, "out.ndjson");
    writeFileSync(path, '{"seq":1,"name":"x","value":1}\n');
    appendFileSync(path, '{"seq":2,"name":"x","va');
    const s = createFileSink({ path, rotateBytes: 1 << 20, clock: systemClock });
    assert.equal((await s.send(batch(3, 2), new AbortController().signal)).kind, "delivered");
    await s.close();
    const lines = readFileSync(path, "utf8").split("\n");
    assert.equal(lines.pop(), "", "ends in a newline");
    for (const l of lines) JSON.parse(l);
    assert.deepEqual(
      lines.map((l) => (JSON.parse(l) as { seq: number }).seq),
      [1, 3, 4],
    );
  });

  it("rotates before a batch would pass rotate_bytes; every file holds whole batches", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lookout-file-sink-"));
    dirs.push(dir);
    const path = join(dir, "out.ndjson");
    const s = createFileSink({ path, rotateBytes: 500, clock: systemClock });
    for (let i = 0; i < 6; i++)
      assert.equal((await s.send(batch(i * 3, 3), new AbortController().signal)).kind, "delivered");
    await s.close();
    const files = readdirSync(dir);
    assert.ok(files.length >= 3, `rotated: ${files}`);
    for (const f of files) {
      const size = readFileSync(join(dir, f)).length;
      assert.ok(size <= 500, `${f}: ${size} bytes`);
    }
    assert.equal(pointsFromNdjson(readAll(dir)).length, 18);
  });
});
