import assert from "node:assert/strict";
import { describe, it } from "node:test";
import v8 from "node:v8";
import {
  type BufferItem,
  createDeltaBuffer,
  type DeltaBuffer,
  HISTORY_CHARS_PER_PART,
} from "./delta-buffer.js";
import { forEachRecord } from "./packed-statuses.js";
import type { ProjectionDelta } from "./records.js";
import { decodeStatus, encodeStatus } from "./status-codec.js";

/** A delta with one new record per key (output names the key and a version) and its eventSeq. */
function delta(eventSeq: number, updates: Record<string, string>, patches: ProjectionDelta["patches"] = []) {
  const keys = Object.keys(updates);
  return {
    eventSeq,
    removed: [],
    statusKeys: keys,
    statuses: keys.map((k) =>
      encodeStatus({
        state: "OK",
        stateType: "HARD",
        attempt: 1,
        maxAttempts: 3,
        output: updates[k] as string,
        longOutput: "",
        perfdata: [],
        flapping: false,
        flapPercent: 0,
        inDowntime: false,
      }),
    ),
    patches,
    history: [],
    downtimesAdded: [],
    downtimesRemoved: [],
  } satisfies ProjectionDelta;
}

/** What a reader sees of an item: outputs by key, patches, eventSeq, the watermark, or a barrier. */
function seen(item: BufferItem | undefined): string {
  if (item === undefined) return "nothing";
  if (item.kind === "barrier") return `barrier ${item.id}`;
  const d = item.delta;
  const records: string[] = [];
  forEachRecord(d, (k, encoded) => {
    const r = decodeStatus(k, encoded);
    records.push(`${k}=${r.output}${r.acknowledgement ? "+ack" : ""}`);
  });
  const patches = d.patches.map((p) => `${p.key}:patch`);
  return `[${[...records, ...patches].join(" ")}] seq ${d.eventSeq} applied ${item.applied}`;
}

const ack = { author: "ops", comment: "", sticky: false, setAt: 1 };

const cases: { name: string; run(b: DeltaBuffer, out: string[]): void; want: string[] }[] = [
  {
    name: "an object changed three times before a take is sent once, with its last record",
    run(b, out) {
      b.add(delta(1, { a: "a1", b: "b1" }));
      b.add(delta(2, { a: "a2" }));
      b.add(delta(3, { a: "a3" }));
      b.markApplied(7);
      out.push(seen(b.take(10)), seen(b.take(10)));
    },
    want: ["[a=a3 b=b1] seq 3 applied 7", "nothing"],
  },
  {
    name: "a patch for a pending record is merged into it; for another object it travels as a patch",
    run(b, out) {
      b.add(delta(1, { a: "a1" }));
      b.add(
        delta(2, {}, [
          { key: "a", acknowledgement: ack },
          { key: "z", inDowntime: true },
        ]),
      );
      out.push(seen(b.take(10)));
    },
    want: ["[a=a1+ack z:patch] seq 2 applied 0"],
  },
  {
    name: "a barrier: what came before is delivered before it, what came after, after it",
    run(b, out) {
      b.add(delta(1, { a: "a1" }));
      b.seal(9);
      b.add(delta(2, { a: "a2" }));
      out.push(seen(b.take(10)), seen(b.take(10)), seen(b.take(10)), seen(b.take(10)));
    },
    want: ["[a=a1] seq 1 applied 0", "barrier 9", "[a=a2] seq 2 applied 0", "nothing"],
  },
  {
    name: "under a steady stream, parts still complete and carry eventSeq and the watermark",
    run(b, out) {
      // Each round the writer applies request n (three objects) and the reader takes two records.
      for (let n = 1; n <= 6; n++) {
        b.add(delta(n, { [`x${n}`]: `v${n}`, [`y${n}`]: `v${n}`, [`z${n}`]: `v${n}` }));
        b.markApplied(n);
        out.push(seen(b.take(2)));
      }
    },
    want: [
      "[x1=v1 y1=v1] seq 0 applied 0",
      "[z1=v1] seq 1 applied 1",
      "[x2=v2 y2=v2] seq 0 applied 0",
      "[z2=v2 x3=v3] seq 0 applied 0",
      "[y3=v3 z3=v3] seq 3 applied 3",
      "[x4=v4 y4=v4] seq 0 applied 0",
    ],
  },
];

describe("DeltaBuffer", () => {
  for (const c of cases) {
    it(c.name, () => {
      const b = createDeltaBuffer();
      const out: string[] = [];
      c.run(b, out);
      assert.deepEqual(out, c.want);
    });
  }

  it("sends a part's records and keys packed in buffers of their own, which a buffer takes back", () => {
    const b = createDeltaBuffer();
    b.add(delta(1, { a: "a1", b: "b-longer-output", c: "" }));
    const item = b.take(10);
    assert.equal(item?.kind, "delta");
    const d = (item as Extract<BufferItem, { kind: "delta" }>).delta;
    assert.deepEqual(d.statuses, []);
    assert.deepEqual(d.statusKeys, []);
    assert.equal(d.packed?.lengths.length, 3);
    assert.equal(d.packed?.keyLengths.length, 3);
    assert.equal(d.packed?.bytes.byteLength, d.packed?.bytes.buffer.byteLength, "not a view of a pool");
    assert.equal(d.packed?.keyBytes.byteLength, d.packed?.keyBytes.buffer.byteLength, "not a view of a pool");
    // A packed delta added to another buffer (as a relay would) comes out the same.
    const again = createDeltaBuffer();
    again.add(d);
    assert.equal(seen(again.take(10)), "[a=a1 b=b-longer-output c=] seq 1 applied 0");
  });

  it("sends a burst of history in parts small enough to be deserialized young, in order, none lost", () => {
    const b = createDeltaBuffer();
    const entries = Array.from({ length: 4000 }, (_, i) => ({
      seq: i + 1,
      at: 1_700_000_000_000 + i,
      kind: "StateChange",
      key: `host-${String(i).padStart(5, "0")}!service-${i % 100}`,
      state: "CRITICAL" as const,
      stateType: "SOFT" as const,
      attempt: 1,
      output: i === 10 ? "x".repeat(200_000) : `CRITICAL - connection refused on port ${i}`,
      author: "",
      comment: "",
    }));
    b.add({ ...delta(4000, {}), history: entries });
    const got: number[] = [];
    let parts = 0;
    for (let item = b.take(4000); item !== undefined; item = b.take(4000)) {
      assert.equal(item.kind, "delta");
      const d = (item as Extract<BufferItem, { kind: "delta" }>).delta;
      parts++;
      got.push(...d.history.map((h) => h.seq));
      // A part is the entry that is too long on its own, or under V8's 100 KB pretenuring threshold.
      const bytes = v8.serialize({ ...d, packed: undefined }).length;
      if (!d.history.some((h) => h.output.length > HISTORY_CHARS_PER_PART)) {
        assert.ok(bytes < 100 * 1024, `a part of ${d.history.length} entries is ${bytes} bytes`);
      } else {
        assert.equal(d.history.length, 1, "a long entry goes alone");
      }
    }
    assert.deepEqual(
      got,
      entries.map((h) => h.seq),
    );
    assert.ok(parts > 4000 / 1000, `${parts} parts`);
  });
});
