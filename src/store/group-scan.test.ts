import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { elementStarts, eventsMatching } from "./group-scan.js";

/** Events whose outputs hold what could fool a scanner: braces, brackets, quotes, backslashes. */
const EVENTS = [
  {
    type: "CheckResultProcessed",
    key: "web!a",
    result: { output: 'a {b} [c] "d" \\', perfdata: [{ label: "x" }] },
  },
  { type: "StateChange", key: "web!a", output: '"type":"StateChange" }]},{' },
  { type: "CheckResultProcessed", key: "web!b", result: { output: '\\\\"', perfdata: [] } },
  { at: 1, type: "StateChange", key: "web!b", output: "" },
  { type: "SinkDropped", record: { type: "StateChange" } },
  { type: "CheckResultProcessed", key: 'we"b', result: { output: "ü ☃ \u0000", perfdata: [] } },
];
const TEXT = JSON.stringify(EVENTS);

describe("group scan", () => {
  it("finds where each event begins, whatever its strings hold", () => {
    const starts = elementStarts(TEXT);
    assert.equal(starts.length, EVENTS.length);
    starts.forEach((s, k) => {
      const to = k + 1 < starts.length ? (starts[k + 1] as number) - 1 : TEXT.lastIndexOf("]");
      assert.deepEqual(JSON.parse(TEXT.slice(s, to)), EVENTS[k]);
    });
  });

  const cases: { name: string; needle: RegExp; count?: number; want: number[] }[] = [
    {
      name: "a kind: the events of it, and one whose nested value has it",
      needle: /"type":"StateChange"/g,
      want: [1, 3, 4],
    },
    { name: "a key", needle: /"key":"web!b"/g, want: [2, 3] },
    { name: "a key with a quote in it", needle: /"key":"we\\"b"/g, want: [5] },
    { name: "text only in outputs matches nothing", needle: /"type":"Nope"/g, want: [] },
    {
      name: "a count that does not fit: every event",
      needle: /"key":"web!b"/g,
      count: 3,
      want: [0, 1, 2, 3, 4, 5],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const found = eventsMatching(TEXT, c.needle, c.count ?? EVENTS.length);
      assert.deepEqual([...found.keys()], c.want);
      for (const [k, e] of found) assert.deepEqual(e, EVENTS[k]);
    });
  }
});
