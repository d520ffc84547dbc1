import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createProjection } from "./projection.js";
import type { StatusRecord } from "./records.js";
import { packRecords, recordsJson } from "./snapshot-records.js";
import { encodeStatus } from "./status-codec.js";

const T = Date.UTC(2026, 0, 1);

const record = (key: string, n: number): StatusRecord => ({
  key,
  state: n % 3 === 0 ? "CRITICAL" : "OK",
  stateType: n % 2 === 0 ? "HARD" : "SOFT",
  attempt: 1 + (n % 3),
  maxAttempts: 3,
  output: n % 5 === 0 ? `Temperatur ${n} °C — «${"x".repeat(n)}»` : `result ${n}`,
  longOutput: n % 7 === 0 ? "line 1\nline 2" : "",
  perfdata: n % 4 === 0 ? [{ label: "time", value: n / 1000, uom: "s", warn: "1", crit: "2", min: 0 }] : [],
  lastCheck: T + n,
  flapping: n % 11 === 0,
  flapPercent: n % 11 === 0 ? 35.5 : 0,
  ...(n % 13 === 0 ? { acknowledgement: { author: "ops", comment: "on it", sticky: true, setAt: T } } : {}),
  inDowntime: n % 17 === 0,
});

describe("snapshot records", () => {
  const keys = Array.from({ length: 300 }, (_, i) => (i % 50 === 0 ? `hôst-${i}!sérvice` : `h${i}!s`));
  const p = createProjection();
  // Every key but a few has a record; those few are PENDING and must be left out.
  const withRecord = keys.filter((_, i) => i % 37 !== 5);
  p.applyDelta({
    eventSeq: 1,
    removed: [],
    statusKeys: withRecord,
    statuses: withRecord.map((k, i) => encodeStatus(record(k, i))),
    patches: [],
    history: [],
    downtimesAdded: [],
    downtimesRemoved: [],
  });
  const cases: { name: string; from: number; to: number }[] = [
    { name: "all", from: 0, to: keys.length },
    { name: "a range with PENDING keys", from: 3, to: 80 },
    { name: "one", from: 50, to: 51 },
    { name: "none", from: 10, to: 10 },
    { name: "only a PENDING key", from: 5, to: 6 },
  ];
  for (const c of cases) {
    it(`${c.name}: the JSON of the records the projection holds, as decoded there`, () => {
      const packed = packRecords(p, keys, c.from, c.to);
      const want = keys.slice(c.from, c.to).flatMap((k) => {
        const r = p.status(k);
        return r === undefined ? [] : [r];
      });
      assert.deepEqual(
        packed.keys,
        want.map((r) => r.key),
      );
      assert.equal(
        packed.bytes.byteLength,
        packed.bytes.buffer.byteLength,
        "a buffer of its own, to transfer",
      );
      assert.equal(recordsJson(packed), JSON.stringify(want).slice(1, -1));
    });
  }
});
