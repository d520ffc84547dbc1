import assert from "node:assert/strict";
import { once } from "node:events";
import { describe, it } from "node:test";
import v8 from "node:v8";
import { MessageChannel } from "node:worker_threads";
import { forEachRecord, packStatuses, recordCount, transferList } from "./packed-statuses.js";
import type { ProjectionDelta } from "./records.js";

function delta(keys: readonly string[], records: readonly string[]): ProjectionDelta {
  return {
    eventSeq: 9,
    removed: [],
    statusKeys: [],
    statuses: [],
    packed: packStatuses(keys, records),
    patches: [],
    history: [],
    downtimesAdded: [],
    downtimesRemoved: [],
  };
}

const pairs = (d: ProjectionDelta): string[] => {
  const out: string[] = [];
  forEachRecord(d, (k, r) => out.push(`${k}=${r}`));
  return out;
};

describe("packed statuses", () => {
  it("gives back every key (UTF-8 included) with its record, in order", () => {
    const d = delta(["web!http", "zürich-01!ping", "h", "db!λ"], ["\x08\x01", "", "\xff\xfe\x00", "ok"]);
    assert.equal(recordCount(d), 4);
    assert.deepEqual(pairs(d), ["web!http=\x08\x01", "zürich-01!ping=", "h=\xff\xfe\x00", "db!λ=ok"]);
  });

  it("crosses a port with its buffers handed over, leaving a message of a few kilobytes to copy", async () => {
    const keys = Array.from(
      { length: 4000 },
      (_, i) => `host-${String(i).padStart(5, "0")}!service-${i % 100}`,
    );
    const records = keys.map((k) => `${k}:${"x".repeat(160)}`);
    const d = delta(keys, records);
    // What V8 copies (and deserializes on the other side) is the message without its transferred
    // buffers; over 100 KB it would be deserialized straight into the old generation.
    const copied = v8.serialize({ t: "delta", delta: { ...d, packed: undefined }, applied: 0 }).length;
    assert.ok(copied < 1024, `${copied} bytes copied`);
    const whole = v8.serialize({ t: "delta", delta: d, applied: 0 }).length;
    assert.ok(whole > 100 * 1024, `the buffers themselves are ${whole} bytes`);

    const { port1, port2 } = new MessageChannel();
    const got = once(port2, "message");
    port1.postMessage({ t: "delta", delta: d, applied: 0 }, transferList(d));
    assert.equal(d.packed?.bytes.byteLength, 0, "the records' buffer is handed over, not copied");
    assert.equal(d.packed?.keyBytes.byteLength, 0, "the keys' buffer is handed over, not copied");
    const [m] = (await got) as [{ delta: ProjectionDelta }];
    port1.close();
    const out = pairs(m.delta);
    assert.equal(out.length, 4000);
    assert.equal(out[3999], `${keys[3999]}=${records[3999]}`);
  });

  it("has nothing to transfer for a delta of strings", () => {
    const d: ProjectionDelta = { ...delta([], []), packed: undefined, statusKeys: ["a"], statuses: ["r"] };
    assert.deepEqual(transferList(d), []);
    assert.deepEqual(pairs(d), ["a=r"]);
  });
});
