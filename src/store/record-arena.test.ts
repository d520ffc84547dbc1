import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createRecordArena } from "./record-arena.js";

/** A latin1 string of `len` bytes, different for each seed. */
const bytes = (len: number, seed: number): string => {
  let s = "";
  for (let i = 0; i < len; i++) s += String.fromCharCode((seed * 31 + i * 7) & 0xff);
  return s;
};

/** A set from a string, or (`from`) from bytes at that offset of a bigger buffer, or a delete. */
type Op = { set: string; len: number; seed: number; from?: number } | { delete: string };

/** Applies ops to an arena and to a Map, checking after each that they agree. */
/** A mark from the first and the last byte: it must see the stored bytes, wherever they came from. */
const mark = (b: Uint8Array, start: number, len: number): number =>
  len === 0 ? -1 : (b[start] as number) + ((b[start + len - 1] as number) << 8);

function agree(ops: readonly Op[]): void {
  const arena = createRecordArena(mark);
  const want = new Map<string, string>();
  for (const op of ops) {
    if ("set" in op) {
      const b = bytes(op.len, op.seed);
      if (op.from === undefined) {
        arena.set(op.set, b);
      } else {
        const src = new Uint8Array(op.from + op.len + 3).fill(0xee);
        src.set(Buffer.from(b, "latin1"), op.from);
        arena.setBytes(op.set, src, op.from, op.len);
      }
      want.set(op.set, b);
    } else {
      arena.delete(op.delete);
      want.delete(op.delete);
    }
    assert.equal(arena.size, want.size);
  }
  assert.deepEqual([...arena.keys()], [...want.keys()], "insertion order, as a Map");
  for (const [k, v] of want) {
    assert.equal(arena.get(k), v, k);
    assert.ok(arena.has(k));
    const slot = arena.find(k);
    assert.equal(arena.lengthOf(slot), v.length);
    // Copied after a byte already there, which must stay.
    const dst = Buffer.alloc(v.length + 2);
    dst[0] = 0xaa;
    assert.equal(arena.copy(slot, dst, 1), v.length + 1);
    assert.equal(dst.toString("latin1", 1, v.length + 1), v, `${k} copied`);
    assert.deepEqual([dst[0], dst[v.length + 1]], [0xaa, 0]);
    const b = Buffer.from(v, "latin1");
    assert.equal(arena.markOf(slot), mark(b, 0, b.length), `${k} marked`);
    // A part of it: the middle third (short runs and long ones take different paths).
    const from = Math.floor(v.length / 3);
    const to = v.length - from;
    const part = Buffer.alloc(to - from);
    assert.equal(arena.copy(slot, part, 0, from, to), to - from);
    assert.equal(part.toString("latin1"), v.slice(from, to), `${k} part copied`);
  }
  assert.equal(arena.get("absent"), undefined);
  assert.equal(arena.find("absent"), -1);
}

describe("RecordArena", () => {
  const cases: { name: string; ops: Op[] }[] = [
    { name: "an empty record", ops: [{ set: "a", len: 0, seed: 1 }] },
    {
      name: "grows in place, then moves to a bigger slot, then shrinks back",
      ops: [
        { set: "a", len: 10, seed: 1 },
        { set: "b", len: 10, seed: 2 },
        { set: "a", len: 32, seed: 3 },
        { set: "a", len: 33, seed: 4 },
        { set: "a", len: 5000, seed: 5 },
        { set: "a", len: 20, seed: 6 },
      ],
    },
    {
      name: "a record with a buffer of its own, replaced by a small one",
      ops: [
        { set: "big", len: 200_000, seed: 7 },
        { set: "x", len: 100, seed: 8 },
        { set: "big", len: 300, seed: 9 },
      ],
    },
    {
      name: "deleted slots and space are reused",
      ops: [
        { set: "a", len: 100, seed: 1 },
        { set: "b", len: 100, seed: 2 },
        { delete: "a" },
        { set: "c", len: 100, seed: 3 },
        { set: "a", len: 90, seed: 4 },
        { delete: "nope" },
      ],
    },
    {
      name: "set from bytes: new, in place, moved, an own buffer, replaced by a string",
      ops: [
        { set: "a", len: 100, seed: 1, from: 7 },
        { set: "a", len: 90, seed: 2, from: 0 },
        { set: "a", len: 700, seed: 3, from: 11 },
        { set: "big", len: 150_000, seed: 4, from: 5 },
        { set: "big", len: 10, seed: 5 },
        { set: "b", len: 0, seed: 6, from: 3 },
      ],
    },
    {
      name: "records across many pages",
      ops: Array.from({ length: 3000 }, (_, i) => ({ set: `k${i % 1500}`, len: 300 + (i % 700), seed: i })),
    },
  ];
  for (const c of cases) it(c.name, () => agree(c.ops));

  it("agrees with a Map on any sequence of sets and deletes", () => {
    const key = fc.constantFrom("a", "b", "c", "d", "e", "f");
    const op = fc.oneof(
      { weight: 4, arbitrary: fc.record({ set: key, len: fc.nat(2100), seed: fc.nat(255) }) },
      {
        weight: 2,
        arbitrary: fc.record({ set: key, len: fc.nat(2100), seed: fc.nat(255), from: fc.nat(40) }),
      },
      { weight: 1, arbitrary: fc.record({ delete: key }) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => agree(ops)),
      { numRuns: 300 },
    );
  });
});
