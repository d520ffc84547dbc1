import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { createProjection } from "./projection.js";
import type { StatusRecord } from "./records.js";
import { packRecords } from "./snapshot-records.js";
import { encodeStatus } from "./status-codec.js";
import { decodeStatusImage, encodeStatusImage, type ImageFrame, statusImageOf } from "./status-image.js";

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

describe("status image", () => {
  const keys = Array.from({ length: 300 }, (_, i) => (i % 50 === 0 ? `hôst-${i}!sérvice` : `h${i}!s`));
  const p = createProjection();
  p.applyDelta({
    eventSeq: 42,
    removed: [],
    statusKeys: keys,
    statuses: keys.map((k, i) => encodeStatus(record(k, i))),
    patches: [],
    history: [],
    downtimesAdded: [{ id: "d1", start: T, end: T + 60_000, objects: ["h1!s"] }],
    downtimesRemoved: [],
    commentsAdded: [
      { id: "ack:h13!s", key: "h13!s", kind: "acknowledgement", author: "ops", text: "x", created: T },
    ],
  });
  const fold = { active: [["h1!s", ["d1"]]], covers: [["d1", ["h1!s"]]] } as const;
  /** What ListStatus can read of a projection: all but the history feed. */
  const shown = (q: ReturnType<typeof createProjection>) => {
    const { history: _, ...rest } = q.snapshot();
    return rest;
  };

  const cases: { name: string; image: () => Buffer }[] = [
    {
      name: "from the reader's parts (a snapshot's barrier)",
      image: () => {
        const { downtimes, comments } = p.captureFrame();
        const frame: ImageFrame = { eventSeq: 42, downtimes, comments: comments ?? [], fold };
        return encodeStatusImage(frame, [
          packRecords(p, keys, 0, 120),
          packRecords(p, keys, 120, keys.length),
        ]);
      },
    },
    {
      name: "from a projection's capture (a start's snapshot)",
      image: () => statusImageOf(p.capture(), fold),
    },
  ];
  for (const c of cases) {
    it(`reads back the projection it was made of, ${c.name}`, () => {
      const back = decodeStatusImage(c.image());
      const q = createProjection();
      q.applyDelta(back.delta);
      assert.deepEqual(shown(q), shown(p));
      assert.deepEqual(back.fold, fold);
    });
  }

  it("refuses an image cut short or of another version", () => {
    const raw = inflateRawSync(statusImageOf(p.capture(), fold));
    const other = Buffer.from(raw);
    other.writeUInt32LE(2, 0);
    for (const bad of [raw.subarray(0, raw.length - 1), other]) {
      assert.throws(() => decodeStatusImage(deflateRawSync(bad)), /cut short|version 2|out of range/i);
    }
  });
});
