import assert from "node:assert/strict";
import { test } from "node:test";
import { groupsBetween, type StoredMessage } from "./command-gaps.js";

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

/** A log: position → message; "cmd" groups, "part" parts. */
function log(entries: Record<number, StoredMessage>) {
  const reads: number[] = [];
  return {
    reads,
    get: async (seq: number) => {
      reads.push(seq);
      return entries[seq] ?? null;
    },
    assemble: async (parts: string) =>
      bytes(
        parts
          .split(",")
          .map((p) => text((entries[Number(p)] as StoredMessage).data))
          .join(""),
      ),
  };
}

const cases: {
  name: string;
  entries: Record<number, StoredMessage>;
  after: number;
  before: number;
  skip?: number[];
  want: [number, string][];
  wantReads?: number[];
}[] = [
  {
    name: "a group the consumer passed over is read and delivered",
    entries: { 120: { subject: "cmd", data: bytes("g120"), parts: "" } },
    after: 119,
    before: 121,
    want: [[120, "g120"]],
  },
  {
    name: "parts of another group are passed; groups between are kept in order",
    entries: {
      10: { subject: "part", data: bytes("a"), parts: "" },
      11: { subject: "cmd", data: bytes("g11"), parts: "" },
      12: { subject: "part", data: bytes("b"), parts: "" },
      13: { subject: "cmd", data: bytes("g13"), parts: "" },
    },
    after: 9,
    before: 14,
    want: [
      [11, "g11"],
      [13, "g13"],
    ],
  },
  {
    name: "the delivered group's own parts are not read",
    entries: {
      5: { subject: "part", data: bytes("x"), parts: "" },
      6: { subject: "part", data: bytes("y"), parts: "" },
    },
    after: 4,
    before: 7,
    skip: [5, 6],
    want: [],
    wantReads: [],
  },
  {
    name: "a group in parts that was passed over is assembled",
    entries: {
      20: { subject: "part", data: bytes("he"), parts: "" },
      21: { subject: "part", data: bytes("llo"), parts: "" },
      22: { subject: "cmd", data: new Uint8Array(0), parts: "20,21" },
    },
    after: 19,
    before: 23,
    want: [[22, "hello"]],
  },
  {
    name: "a position with no message (purged or deleted) is passed",
    entries: { 31: { subject: "cmd", data: bytes("g31"), parts: "" } },
    after: 29,
    before: 32,
    want: [[31, "g31"]],
    wantReads: [30, 31],
  },
  { name: "no gap: nothing read", entries: {}, after: 7, before: 8, want: [], wantReads: [] },
];

for (const c of cases) {
  test(c.name, async () => {
    const l = log(c.entries);
    const got = await groupsBetween({
      after: c.after,
      before: c.before,
      skip: new Set(c.skip ?? []),
      subject: "cmd",
      get: l.get,
      assemble: l.assemble,
    });
    assert.deepEqual(
      got.map((g) => [g.seq, text(g.data)]),
      c.want,
    );
    if (c.wantReads !== undefined) assert.deepEqual(l.reads, c.wantReads);
  });
}
