import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { silentLogger } from "../model/logger.js";
import { FakeClock } from "../testing/fake-clock.js";
import { AUDIT_RETENTION_MS, openAuditLog } from "./audit-log.js";
import type { AuditEntry } from "./record.js";

const dir = mkdtempSync(join(tmpdir(), "lookout-audit-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const entry = (at: number, rpc: string): AuditEntry => ({
  at,
  source: "api",
  principal: { name: "ops", role: "operator" },
  peer: "127.0.0.1:1234",
  rpc,
  commandJson: "{}",
  outcome: "accepted",
  reason: "",
});

describe("audit log", () => {
  test("newest first, since, limit; durable across reopening; retention drops the old", () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const path = join(dir, "audit.db");
    const log = openAuditLog(path, clock, silentLogger);
    const t0 = clock.now();
    for (let i = 0; i < 5; i++) log.record(entry(t0 + i * 1000, `r${i}`));
    log.record({
      ...entry(t0 + 5000, "ext"),
      source: "extcmd",
      peer: "",
      outcome: "rejected",
      reason: "bad line",
    });
    assert.deepEqual(
      log.list(undefined, 100).map((e) => e.rpc),
      ["ext", "r4", "r3", "r2", "r1", "r0"],
    );
    assert.deepEqual(
      log.list(t0 + 3000, 100).map((e) => e.rpc),
      ["ext", "r4", "r3"],
    );
    assert.deepEqual(
      log.list(undefined, 2).map((e) => e.rpc),
      ["ext", "r4"],
    );
    log.close();
    clock.advance(AUDIT_RETENTION_MS + 2500);
    const reopened = openAuditLog(path, clock, silentLogger);
    const kept = reopened.list(undefined, 100);
    assert.deepEqual(
      kept.map((e) => e.rpc),
      ["ext", "r4", "r3"],
    );
    assert.deepEqual(kept[0], {
      ...entry(t0 + 5000, "ext"),
      source: "extcmd",
      peer: "",
      outcome: "rejected",
      reason: "bad line",
      principal: { name: "ops", role: "operator" },
    });
    reopened.close();
  });

  test("a zone's worker is a principal without a role; no principal stays absent", () => {
    const log = openAuditLog(join(dir, "zone.db"), new FakeClock(), silentLogger);
    const worker: AuditEntry = {
      ...entry(1, "lookout.result.z1"),
      source: "zone",
      principal: { name: "worker:evil" },
      peer: "",
      outcome: "rejected",
      reason: "wrong_zone",
    };
    const { principal: _p, ...anonymous } = entry(2, "anon");
    log.record(worker);
    log.record(anonymous);
    assert.deepEqual(log.list(undefined, 10), [anonymous, worker]);
    log.close();
  });
});
