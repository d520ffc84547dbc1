import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { packStatuses, recordCount } from "./packed-statuses.js";
import { createProjection, type Projection } from "./projection.js";
import type { ProjectionDelta, StatusRecord } from "./records.js";
import { encodeStatus } from "./status-codec.js";

const T = Date.UTC(2026, 0, 1);

const record = (key: string, n: number): StatusRecord => ({
  key,
  state: n % 3 === 0 ? "CRITICAL" : "OK",
  stateType: "HARD",
  attempt: 1,
  maxAttempts: 3,
  output: `result ${n}`,
  longOutput: "",
  perfdata: [],
  lastCheck: T + n,
  flapping: false,
  flapPercent: 0,
  inDowntime: false,
});

/** A delta setting records `from`..`to` (version n), removing some, patching one, with history. */
function delta(from: number, to: number, n: number, over: Partial<ProjectionDelta> = {}): ProjectionDelta {
  const keys = Array.from({ length: to - from }, (_, i) => `h!s${from + i}`);
  return {
    eventSeq: n,
    removed: [],
    statusKeys: keys,
    statuses: keys.map((k, i) => encodeStatus(record(k, n * 10_000 + from + i))),
    patches: [],
    history: [],
    downtimesAdded: [],
    downtimesRemoved: [],
    ...over,
  };
}

/** The same delta with its records and keys packed, as a part crossing threads has them. */
function packed(d: ProjectionDelta): ProjectionDelta {
  return { ...d, statusKeys: [], statuses: [], packed: packStatuses(d.statusKeys, d.statuses) };
}

const first = delta(0, 3000, 1);
const second = delta(1000, 3500, 2, {
  removed: ["h!s0", "h!s1"],
  // A patch of an object whose record the same delta sets: it applies to the new record.
  patches: [{ key: "h!s2000", acknowledgement: { author: "ops", comment: "", sticky: false, setAt: T } }],
  history: [{ seq: 7, at: T, kind: "StateChange", key: "h!s5", output: "", author: "", comment: "" }],
  downtimesAdded: [{ id: "d1", start: T, end: T + 1 }],
});

function atOnce(): Projection {
  const p = createProjection();
  p.applyDelta(first);
  p.applyDelta(second);
  return p;
}

describe("Projection.applyDeltaInSteps", () => {
  const cases = [1, 7, 999, 1000, 2500, 10_000].flatMap((max) => [
    { max, form: "strings", deltas: [first, second] },
    { max, form: "packed", deltas: [packed(first), packed(second)] },
  ]);
  for (const { max, form, deltas } of cases) {
    it(`ends where applyDelta ends, ${max} records a step, records as ${form}`, () => {
      const p = createProjection();
      for (const d of deltas) {
        const step = p.applyDeltaInSteps(d, max);
        let steps = 1;
        while (!step()) {
          steps++;
          // Until the last step the delta is not done: its sequence number is not reached.
          assert.ok(p.eventSeq() < d.eventSeq);
        }
        assert.equal(steps, Math.max(1, Math.ceil(recordCount(d) / max)));
        assert.equal(p.eventSeq(), d.eventSeq);
      }
      assert.deepEqual(p.snapshot(), atOnce().snapshot());
    });
  }

  it("between steps holds some records of the delta, each whole, and the removals", () => {
    const p = createProjection();
    p.applyDelta(first);
    const step = p.applyDeltaInSteps(second, 1000);
    assert.equal(step(), false);
    assert.equal(p.status("h!s0"), undefined, "removed in the first step");
    assert.equal(p.status("h!s1000")?.output, `result ${2 * 10_000 + 1000}`, "applied");
    assert.equal(p.status("h!s2999")?.output, `result ${10_000 + 2999}`, "not yet");
    assert.equal(p.status("h!s2000")?.acknowledgement, undefined, "patches come last");
    assert.equal(p.history().size, 0);
    let done = false;
    while (!done) done = step();
    assert.equal(p.status("h!s2000")?.acknowledgement?.author, "ops");
    assert.equal(p.history().size, 1);
    assert.ok(p.downtime("d1"));
  });
});

describe("Projection history", () => {
  // [capacity, entries appended, entries per delta]: the newest `capacity` entries are kept, no more.
  const cases: [number, number, number][] = [
    [8, 100, 1],
    [1000, 5000, 10],
    [50_000, 120_000, 500],
  ];
  for (const [capacity, appended, per] of cases) {
    it(`keeps the newest ${capacity} of ${appended} entries, ${per} a delta`, () => {
      const p = createProjection(undefined, { historyCapacity: capacity });
      let held = 0;
      for (let seq = 1; seq <= appended; seq += per) {
        const history = Array.from({ length: per }, (_, i) => ({
          seq: seq + i,
          at: T,
          kind: "StateChange",
          key: "h!s",
          output: "",
          author: "",
          comment: "",
        }));
        p.applyDelta(delta(0, 0, seq, { history }));
        held = Math.max(held, p.history().size);
      }
      const h = p.history();
      assert.equal(h.size, capacity);
      assert.deepEqual(
        Array.from({ length: h.size }, (_, i) => h.seqAt(i)),
        Array.from({ length: capacity }, (_, i) => appended - capacity + 1 + i),
      );
      assert.ok(held <= capacity, `held ${held}`);
    });
  }
});

describe("projection downtimes and comments", () => {
  it("replaces a downtime's record whole, comments by id; an upgraded fold's record keeps the window held", () => {
    const p = createProjection();
    const whole = {
      id: "d1",
      start: T,
      end: T + 10,
      objects: ["h"],
      author: "ops",
      created: T,
      active: false,
    };
    p.applyDelta(
      delta(0, 0, 1, {
        downtimesAdded: [whole],
        commentsAdded: [{ id: "c1", key: "h", kind: "user", author: "ops", text: "x", created: T }],
      }),
    );
    p.applyDelta(
      delta(0, 0, 2, { downtimesAdded: [{ ...whole, active: true, startedAt: T + 1, endsAt: T + 10 }] }),
    );
    assert.equal(p.downtime("d1")?.active, true);
    assert.equal(p.downtime("d1")?.startedAt, T + 1);
    // A fold restored from an older snapshot knows objects and state only.
    p.applyDelta(
      delta(0, 0, 3, {
        downtimesAdded: [{ id: "d1", start: 0, end: 0, objects: ["h", "h!s"], active: true }],
      }),
    );
    assert.deepEqual(
      [p.downtime("d1")?.start, p.downtime("d1")?.end, p.downtime("d1")?.author],
      [T, T + 10, "ops"],
    );
    assert.deepEqual(p.downtime("d1")?.objects, ["h", "h!s"]);
    assert.equal(p.comment("c1")?.text, "x");
    p.applyDelta(delta(0, 0, 4, { commentsRemoved: ["c1"] }));
    assert.equal(p.comment("c1"), undefined);
    assert.deepEqual(createProjection(p.capture()).snapshot(), p.snapshot(), "an image carries them");
  });
});
