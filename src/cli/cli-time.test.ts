import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseCliTime } from "./cli-time.js";

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);

describe("parseCliTime", () => {
  const cases: readonly { text: string; ms?: number }[] = [
    { text: "2026-11-28T03:12:00Z", ms: Date.UTC(2026, 10, 28, 3, 12) },
    { text: "2026-11-28T04:12:00.250+01:00", ms: Date.UTC(2026, 10, 28, 3, 12, 0, 250) },
    { text: "2026-11-28 03:12:00z", ms: Date.UTC(2026, 10, 28, 3, 12) },
    { text: "-2h", ms: NOW - 7_200_000 },
    { text: "-1h30m", ms: NOW - 5_400_000 },
    { text: "-90s", ms: NOW - 90_000 },
    { text: "-1d", ms: NOW - 86_400_000 },
    { text: "-1.5h", ms: NOW - 5_400_000 },
    { text: "-500ms", ms: NOW - 500 },
    { text: "2h" },
    { text: "+2h" },
    { text: "-" },
    { text: "-2x" },
    { text: "2026-11-28T03:12:00" },
    { text: "2026-13-28T03:12:00Z" },
    { text: "yesterday" },
    { text: "" },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.text)} → ${c.ms === undefined ? "refused" : new Date(c.ms).toISOString()}`, () => {
      const r = parseCliTime(c.text, NOW);
      if (c.ms === undefined) {
        assert.equal(r.ok, false);
        if (!r.ok) assert.match(r.error, /invalid time/);
      } else {
        assert.deepEqual(r, { ok: true, ms: c.ms });
      }
    });
  }
});
