import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inflateRawSync } from "node:zlib";
import type { LookoutEvent } from "../model/events.js";
import { createEventRowWriter } from "./event-row.js";

/** A StateChange whose output is `output`: enough of an event for the serialization. */
function event(i: number, output: string): LookoutEvent {
  return {
    type: "StateChange",
    at: 1_700_000_000_000 + i,
    key: `h${i}!s`,
    host: `h${i}`,
    service: "s",
    from: "OK",
    to: "CRITICAL",
    stateType: "SOFT",
    attempt: 1,
    maxAttempts: 3,
    hardChange: false,
    fromHardState: "OK",
    reachable: true,
    output,
  };
}

const rowOf = (n: number, output: (i: number) => string): LookoutEvent[] =>
  Array.from({ length: n }, (_, i) => event(i, output(i)));

describe("EventRowWriter", () => {
  // Rows written one after another by the same writer: each body must unpack to exactly
  // JSON.stringify of its own events (group boundaries at 64, a buffer that has to grow, text that
  // is not ASCII or needs escaping).
  const rows: { name: string; events: LookoutEvent[] }[] = [
    { name: "one event", events: rowOf(1, () => "CRITICAL - down") },
    { name: "one group less one", events: rowOf(63, (i) => `out ${i}`) },
    { name: "exactly one group", events: rowOf(64, (i) => `out ${i}`) },
    { name: "one group and one", events: rowOf(65, (i) => `out ${i}`) },
    { name: "a thousand", events: rowOf(1000, (i) => `OK - ${i} | time=0.${i}s;1;2;0`) },
    {
      name: "non-ASCII and escapes",
      events: rowOf(130, (i) => `Temperatur ${i} °C — «ok»\n"quoted"\\ \u0001 😀`),
    },
    { name: "more than the first buffer", events: rowOf(300, (i) => `${i}`.padEnd(8_000, "x")) },
    { name: "after a big one, small again", events: rowOf(2, () => "ok") },
  ];
  const writer = createEventRowWriter();
  for (const r of rows) {
    it(`${r.name}: the body is the JSON of the row's events`, () => {
      for (const e of r.events) writer.add(e);
      assert.equal(writer.count, r.events.length);
      const body = writer.take();
      assert.equal(writer.count, 0);
      assert.equal(inflateRawSync(body).toString("utf8"), JSON.stringify(r.events));
    });
  }
});
