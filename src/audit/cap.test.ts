import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AUDIT_FIELD_MAX_BYTES, capEntry, capJson, capText } from "./cap.js";
import type { AuditEntry } from "./record.js";

const bytes = (s: string) => Buffer.byteLength(s);

describe("audit field caps", () => {
  const texts: { what: string; s: string; cut: boolean }[] = [
    { what: "short", s: "unknown command RESTART_PROGRAM", cut: false },
    { what: "exactly the cap", s: "x".repeat(AUDIT_FIELD_MAX_BYTES), cut: false },
    { what: "one byte over", s: "x".repeat(AUDIT_FIELD_MAX_BYTES + 1), cut: true },
    { what: "70,060 bytes", s: "A".repeat(70_060), cut: true },
    { what: "multi-byte characters", s: "ü€😀".repeat(1000), cut: true },
  ];
  for (const c of texts) {
    test(`capText: ${c.what}`, () => {
      const out = capText(c.s);
      assert.ok(bytes(out) <= AUDIT_FIELD_MAX_BYTES, `${bytes(out)} bytes`);
      if (!c.cut) return assert.equal(out, c.s);
      assert.ok(out.endsWith(`…[cut, ${bytes(c.s)} bytes]`), out.slice(-40));
      const kept = out.slice(0, out.lastIndexOf("…[cut,"));
      assert.ok(c.s.startsWith(kept), "a prefix of whole characters");
      assert.ok(bytes(kept) > AUDIT_FIELD_MAX_BYTES - 64, "nearly all of the room is used");
    });
  }

  test("capJson keeps the document parseable and says which strings were cut", () => {
    const comment = "c".repeat(5000);
    const json = JSON.stringify({ Type: "AcknowledgeProblem", Author: "ops", Comment: comment });
    const out = capJson(json);
    assert.ok(bytes(out) <= AUDIT_FIELD_MAX_BYTES);
    const doc = JSON.parse(out) as Record<string, string>;
    assert.equal(doc.Type, "AcknowledgeProblem");
    assert.equal(doc.Author, "ops");
    assert.match(doc.Comment ?? "", /^c+…\[cut, 5000 bytes\]$/);
    // Many long strings: each is cut shorter until the whole fits.
    const objects = Array.from({ length: 10 }, (_, i) => ({ Host: `${i}${"h".repeat(3000)}` }));
    const many = capJson(JSON.stringify({ Type: "ProcessCheckResults", Count: 10, Objects: objects }));
    assert.ok(bytes(many) <= AUDIT_FIELD_MAX_BYTES, `${bytes(many)}`);
    const m = JSON.parse(many) as { Count: number; Objects: { Host: string }[] };
    assert.equal(m.Count, 10);
    assert.equal(m.Objects.length, 10);
    assert.match(m.Objects[9]?.Host ?? "", /^9h*…\[cut, 3001 bytes\]$/);
    // Not JSON (never written so, but never kept long either).
    assert.ok(capJson(`{${"x".repeat(5000)}`).endsWith("…[cut, 5001 bytes]"));
  });

  test("capEntry caps every text field, and returns a record with nothing to cut as it is", () => {
    const e: AuditEntry = {
      at: 1,
      source: "extcmd",
      peer: "",
      rpc: "PROCESS_SERVICE_CHECK_RESULT",
      commandJson: '{"Type":"ProcessCheckResult"}',
      outcome: "accepted",
      reason: "",
    };
    assert.equal(capEntry(e), e);
    const long = "Z".repeat(3000);
    const capped = capEntry({
      ...e,
      principal: { name: long, role: "operator" },
      peer: long,
      rpc: long,
      commandJson: JSON.stringify({ Type: long }),
      reason: long,
    });
    for (const v of [capped.principal?.name, capped.peer, capped.rpc, capped.commandJson, capped.reason]) {
      assert.ok(v !== undefined && bytes(v) <= AUDIT_FIELD_MAX_BYTES && v.includes("…[cut, "), v);
    }
    assert.equal(capped.principal?.role, "operator");
  });
});
