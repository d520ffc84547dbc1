import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { disabledMaskOf } from "../model/object-flags.js";
import type { StatusRecord } from "./records.js";
import { checkedByLength, decodeStatus, disabledMaskAt, encodeStatus } from "./status-codec.js";

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 123);

const base: StatusRecord = {
  key: "web!http",
  state: "OK",
  stateType: "HARD",
  attempt: 1,
  maxAttempts: 3,
  output: "OK - all good",
  longOutput: "",
  perfdata: [],
  lastCheck: T,
  flapping: false,
  flapPercent: 0,
  inDowntime: false,
};

const cases: { name: string; record: StatusRecord }[] = [
  { name: "a plain OK", record: base },
  {
    name: "every field set",
    record: {
      ...base,
      state: "CRITICAL",
      stateType: "SOFT",
      attempt: 2,
      maxAttempts: 5,
      longOutput: "line 2\nline 3",
      perfdata: [
        { label: "time", value: 0.012, uom: "s", warn: "1", crit: "2", min: 0, max: 10 },
        { label: "'quoted label'", value: -3.5, uom: "", warn: "", crit: "@10:20" },
      ],
      lastStateChange: T - 60_000,
      lastHardStateChange: T - 3_600_000,
      flapping: true,
      flapPercent: 42.5,
      acknowledgement: { author: "ops", comment: "on it", sticky: true, setAt: T - 1000 },
      inDowntime: true,
    },
  },
  { name: "a host", record: { ...base, key: "web", state: "UNREACHABLE" } },
  {
    name: "an acknowledgement with empty fields is still one",
    record: { ...base, state: "DOWN", acknowledgement: { author: "", comment: "", sticky: false, setAt: 0 } },
  },
  {
    name: "fields longer than 127 bytes (multi-byte lengths) and non-ASCII text",
    record: {
      ...base,
      output: `WARNING – überlastet ${"x".repeat(300)} ✓`,
      longOutput: "日本語\n".repeat(100),
      perfdata: Array.from({ length: 20 }, (_, i) => ({
        label: `disk-${i}`,
        value: i,
        uom: "%",
        warn: "80",
        crit: "90",
      })),
    },
  },
  { name: "zero values", record: { ...base, attempt: 0, output: "", lastCheck: 0 } },
  { name: "checked by a worker", record: { ...base, checkedBy: "w1" } },
  { name: "notifications switched off", record: { ...base, notificationsDisabled: true } },
  {
    name: "every switch off, checked by a worker",
    record: {
      ...base,
      checkedBy: "w1",
      activeChecksDisabled: true,
      passiveChecksDisabled: true,
      notificationsDisabled: true,
      flapDetectionDisabled: true,
    },
  },
  {
    name: "checked by a worker with a long non-ASCII name, every other field set",
    record: {
      ...base,
      state: "WARNING",
      perfdata: [{ label: "time", value: 1, uom: "s", warn: "", crit: "" }],
      acknowledgement: { author: "ops", comment: "", sticky: false, setAt: T },
      inDowntime: true,
      checkedBy: `wörker-${"9".repeat(200)}`,
    },
  },
];

describe("status codec", () => {
  for (const c of cases) {
    it(`round-trips ${c.name}`, () => {
      const bytes = encodeStatus(c.record);
      const back = decodeStatus(c.record.key, bytes);
      // A lastCheck of 0 means "never": it is not held.
      const { lastCheck, ...rest } = c.record;
      assert.deepEqual(back, lastCheck === 0 ? rest : c.record);
      assert.equal(encodeStatus(back), bytes, "encode(decode(bytes)) is bytes");
    });
  }

  // checked_by (field 19) is held first, so that a ListStatus page can move it after fields 17–18.
  for (const c of cases) {
    it(`says where checked_by ends: ${c.name}`, () => {
      const bytes = Buffer.from(encodeStatus(c.record), "latin1");
      const n = checkedByLength(bytes, 0, bytes.length);
      assert.equal(disabledMaskAt(bytes, n), disabledMaskOf(c.record), "the switches read from the front");
      const by = c.record.checkedBy;
      const off = disabledMaskOf(c.record);
      if (by === undefined && off === 0) {
        assert.equal(n, 0);
        return;
      }
      if (by === undefined) {
        // Only switches: three bytes each, the rest is the record without them.
        assert.equal(n, 3 * [1, 2, 4, 8].filter((b) => (off & b) !== 0).length);
        assert.equal(
          disabledMaskOf(decodeStatus(c.record.key, bytes.subarray(0, n).toString("latin1"))),
          off,
        );
        return;
      }
      const rest = decodeStatus(c.record.key, bytes.subarray(n).toString("latin1"));
      assert.equal(rest.checkedBy, undefined, "the rest of the record has no checked_by");
      assert.equal(decodeStatus(c.record.key, bytes.subarray(0, n).toString("latin1")).checkedBy, by);
      const {
        checkedBy: _,
        activeChecksDisabled: _a,
        passiveChecksDisabled: _p,
        notificationsDisabled: _n,
        flapDetectionDisabled: _f,
        ...without
      } = c.record;
      assert.equal(
        bytes.subarray(n).toString("latin1"),
        encodeStatus(without),
        "the rest is the record without it",
      );
    });
  }

  it("reads a record held before checked_by existed as checked by nobody", () => {
    // The bytes an older build held for `base` (fields 3–16 only): decoded, no checkedBy appears.
    const old = encodeStatus(base);
    assert.equal(old.charCodeAt(0), 0x18, "the record starts with its state");
    assert.equal("checkedBy" in decodeStatus(base.key, old), false);
  });

  it("keeps whole milliseconds", () => {
    const r = decodeStatus("a", encodeStatus({ ...base, lastCheck: T + 0.75 }));
    assert.equal(r.lastCheck, T);
  });

  it("is compact: a typical record is a short string", () => {
    const bytes = encodeStatus({
      ...base,
      perfdata: [{ label: "time", value: 0.012, uom: "s", warn: "1", crit: "2", min: 0 }],
      lastStateChange: T,
      lastHardStateChange: T,
    });
    assert.ok(bytes.length < 110, `${bytes.length} bytes`);
  });
});
