import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CheckOutcome, PerfDatum } from "../model/check-result.js";
import type { TlsProbe } from "../model/config.js";
import { assertWellFormed, checkTarget, malformedVariants } from "./check-contract.js";

const time: PerfDatum = { label: "time", value: 0.002, uom: "s", warn: "", crit: "", min: 0, max: 10 };
const good: CheckOutcome = { exitStatus: 0, output: "TCP OK - fine", longOutput: "", perfdata: [time] };

describe("assertWellFormed", () => {
  const table: [string, CheckOutcome, boolean][] = [
    ["a good outcome", good, true],
    ["no perfdata", { ...good, perfdata: [] }, true],
    ["exit status 4", { ...good, exitStatus: 4 as 0 }, false],
    ["empty output", { ...good, output: " " }, false],
    ["newline in output", { ...good, output: "TCP OK\nmore" }, false],
    ["perfdata separator in output", { ...good, output: "TCP OK | time=1" }, false],
    ["NaN value", { ...good, perfdata: [{ ...time, value: Number.NaN }] }, false],
    ["infinite max", { ...good, perfdata: [{ ...time, max: Number.POSITIVE_INFINITY }] }, false],
    ["= in label", { ...good, perfdata: [{ ...time, label: "a=b" }] }, false],
    ["control character in label", { ...good, perfdata: [{ ...time, label: "a\tb" }] }, false],
    ["digit in uom", { ...good, perfdata: [{ ...time, uom: "s1" }] }, false],
  ];
  for (const [name, outcome, ok] of table) {
    it(name, () => {
      if (ok) assertWellFormed(outcome);
      else assert.throws(() => assertWellFormed(outcome), assert.AssertionError);
    });
  }
});

describe("malformedVariants", () => {
  it("breaks each probe field four ways and leaves type and schedule alone", () => {
    const ok = checkTarget<TlsProbe>({
      type: "tls",
      address: "127.0.0.1:443",
      warnWithinMs: 1,
      critWithinMs: 1,
    });
    const variants = malformedVariants(ok);
    assert.equal(variants.length, 3 * 4);
    for (const v of variants) {
      assert.equal(v.probe.type, "tls");
      assert.equal(v.probe.timeoutMs, ok.probe.timeoutMs);
      assert.equal(v.host, ok.host);
    }
    assert.ok(variants.some((v) => !("address" in v.probe)));
    assert.ok(variants.some((v) => (v.probe.address as unknown) === 12345));
  });
});
