import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createProjection, pendingRecord } from "./projection.js";
import type { StatusRecord } from "./records.js";
import { encodeStatus } from "./status-codec.js";
import { SUMMARY_VALUES, statusSummary, summaryFields } from "./status-summary.js";

const base: StatusRecord = {
  ...pendingRecord("web!http"),
  state: "CRITICAL",
  stateType: "SOFT",
  attempt: 2,
  maxAttempts: 3,
  output: "CRITICAL - down",
  longOutput: "line 2\nline 3",
  perfdata: [{ label: "rta", value: 12, uom: "ms", warn: "100", crit: "200", min: 0 }],
  lastCheck: 1_700_000_000_123,
  lastStateChange: 1_700_000_000_000,
  flapPercent: 12.5,
};

const ack = {
  author: "ops",
  comment: "x".repeat(300),
  sticky: true,
  notify: false,
  setAt: 1_700_000_000_500,
};

const cases: { name: string; record: StatusRecord }[] = [
  { name: "a soft critical service", record: base },
  {
    name: "hard, flapping, acknowledged, in downtime",
    record: {
      ...base,
      key: "web!disk",
      stateType: "HARD",
      flapping: true,
      acknowledgement: ack,
      inDowntime: true,
    },
  },
  {
    name: "an UP host checked by a zone worker",
    record: { ...base, key: "web", state: "UP", stateType: "HARD", checkedBy: "worker-1" },
  },
  {
    name: "a PENDING record (a patch on an object without a result)",
    record: { ...pendingRecord("db"), inDowntime: true },
  },
  { name: "a service in downtime only", record: { ...base, key: "web!ssh", state: "OK", inDowntime: true } },
  {
    name: "UNREACHABLE, acknowledged",
    record: { ...base, key: "ack1", state: "UNREACHABLE", acknowledgement: ack },
  },
];

describe("status summary", () => {
  for (const c of cases) {
    it(c.name, () => {
      const bytes = Buffer.from(encodeStatus(c.record), "latin1");
      const s = statusSummary(bytes, 0, bytes.length, c.record.key);
      assert.ok(s < SUMMARY_VALUES);
      assert.deepEqual(summaryFields(s), {
        kind: c.record.key.includes("!") ? "service" : "host",
        state: c.record.state,
        stateType: c.record.stateType,
        flapping: c.record.flapping,
        acknowledged: c.record.acknowledgement !== undefined,
        inDowntime: c.record.inDowntime,
      });
    });
  }

  it("the projection counts its records by summary as they change and go", () => {
    const p = createProjection({
      eventSeq: 0,
      statuses: cases.map((c) => c.record),
      history: [],
      downtimes: [],
    });
    const count = () => {
      const out: Record<string, number> = {};
      p.summaryCounts().forEach((n, s) => {
        if (n === 0) return;
        const f = summaryFields(s);
        const k = `${f.kind} ${f.state}`;
        out[k] = (out[k] ?? 0) + n;
      });
      return out;
    };
    assert.deepEqual(count(), {
      "service CRITICAL": 2,
      "host UP": 1,
      "host PENDING": 1,
      "service OK": 1,
      "host UNREACHABLE": 1,
    });
    p.applyDelta({
      eventSeq: 1,
      removed: ["db"],
      statusKeys: ["web!http"],
      statuses: [encodeStatus({ ...base, state: "OK" })],
      patches: [{ key: "ack1", acknowledgement: null }],
      history: [],
      downtimesAdded: [],
      downtimesRemoved: [],
    });
    assert.deepEqual(count(), {
      "service OK": 2,
      "service CRITICAL": 1,
      "host UP": 1,
      "host UNREACHABLE": 1,
    });
    const acked = [...p.summaryCounts()].reduce((n, c, s) => n + (summaryFields(s).acknowledged ? c : 0), 0);
    assert.equal(acked, 1, "web!disk only: ack1's was removed by the patch");
  });
});
