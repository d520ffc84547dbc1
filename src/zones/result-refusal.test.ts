import assert from "node:assert/strict";
import { test } from "node:test";
import type { AuditEntry } from "../audit/index.js";
import { type LogFields, type Logger, silentLogger } from "../model/logger.js";
import { FakeClock } from "../testing/fake-clock.js";
import { forgedResult } from "../testing/zone-forgery.js";
import { noZoneMetrics } from "./metrics.js";
import { resultSubject } from "./names.js";
import {
  createRefusalReporter,
  type ObjectPlacement,
  REFUSAL_AUDITS_PER_WINDOW,
  REFUSAL_LOG_WINDOW_MS,
  type ResultRefusal,
  refusalOf,
} from "./result-refusal.js";

const objects: Record<string, ObjectPlacement> = {
  "web1!http": { zone: "default", active: false },
  "r1!s": { zone: "z1", active: true },
  "r1!p": { zone: "z1", active: false },
  "r2!s": { zone: "z2", active: true },
  "l!s": { zone: "default", active: true },
  "odd!s": { zone: "data centre 2", active: true },
};
const isLocal = (z: string) => z === "default";

test("a result is taken only for an active object of the subject's remote zone", () => {
  const cases: [string, string, string, string | undefined, ResultRefusal | undefined][] = [
    // subject zone, payload zone, host, service, refusal
    ["z1", "z1", "r1", "s", undefined],
    ["z1", "z1", "web1", "http", "wrong_zone"],
    ["z1", "z1", "r2", "s", "wrong_zone"],
    ["z1", "z2", "r2", "s", "zone_mismatch"],
    ["z1", "z2", "r1", "s", "zone_mismatch"],
    ["z1", "z1", "nowhere", "s", "unknown_object"],
    ["z1", "z1", "r1", "p", "not_active"],
    ["default", "default", "l", "s", "local_zone"],
    ["default", "default", "web1", "http", "local_zone"],
    // A zone whose name is not a token: its subject carries the hash, and matches only it.
    ["data centre 2", "data centre 2", "odd", "s", undefined],
    ["data centre 2", "data centre 2", "r1", "s", "wrong_zone"],
  ];
  for (const [subjectZone, zone, host, service, want] of cases) {
    const r = forgedResult(host, service, zone);
    const key = service === undefined ? host : `${host}!${service}`;
    assert.equal(
      refusalOf(resultSubject(subjectZone), r, objects[key], isLocal),
      want,
      `${key} claiming ${zone} on ${subjectZone}'s subject`,
    );
  }
  const noZone = { ...forgedResult("r1", "s", "z1"), zone: undefined } as unknown as ReturnType<
    typeof forgedResult
  >;
  assert.equal(refusalOf(resultSubject("z1"), noZone, objects["r1!s"], isLocal), "zone_mismatch");
});

test("refusals: each counted, logged once per worker per minute, audited up to the limit per zone", () => {
  const clock = new FakeClock();
  const counted: string[] = [];
  const logged: LogFields[] = [];
  const audited: AuditEntry[] = [];
  const logger: Logger = {
    ...silentLogger,
    warn: (_msg: string, f?: LogFields) => void logged.push(f ?? {}),
  };
  const reporter = createRefusalReporter({
    metrics: { ...noZoneMetrics, refused: (z, reason) => void counted.push(`${z}/${reason}`) },
    logger,
    audit: { record: (e) => void audited.push(e) },
    now: () => clock.now(),
  });
  const refuse = (worker: string, subjectZone = "z1", host = "web1") =>
    reporter.refuse({
      subject: resultSubject(subjectZone),
      zone: subjectZone,
      reason: "wrong_zone",
      seq: 1,
      result: { ...forgedResult(host, "http", subjectZone), worker },
      object: { zone: "default", active: false },
    });
  for (let i = 0; i < 100; i++) refuse("evil");
  refuse("other");
  assert.equal(counted.length, 101);
  assert.deepEqual(
    logged.map((f) => f.worker),
    ["evil", "other"],
    "one line per worker within the minute",
  );
  assert.equal(audited.length, REFUSAL_AUDITS_PER_WINDOW, "z1's audit records are bounded per minute");
  const first = audited[0] as AuditEntry;
  assert.deepEqual(
    { source: first.source, principal: first.principal, rpc: first.rpc, outcome: first.outcome },
    { source: "zone", principal: { name: "worker:evil" }, rpc: "lookout.result.z1", outcome: "rejected" },
  );
  assert.match(first.reason, /^wrong_zone: the object is in zone "default", not "z1"$/);
  assert.deepEqual(JSON.parse(first.commandJson), {
    Type: "ZoneResult",
    Seq: 1,
    Zone: "z1",
    Worker: "evil",
    Host: "web1",
    Service: "http",
  });
  refuse("evil", "z2");
  assert.equal(audited.length, REFUSAL_AUDITS_PER_WINDOW + 1, "another zone has its own allowance");

  clock.advance(REFUSAL_LOG_WINDOW_MS - 1);
  refuse("evil");
  assert.equal(logged.length, 3, "still within the minute for z1's evil");
  clock.advance(1);
  refuse("evil");
  assert.equal(logged.length, 4);
  assert.equal(logged[3]?.alsoRefusedSinceLastSaid, 100, "the next line says how many it held back");
  const last = audited.at(-1) as AuditEntry;
  assert.equal(
    JSON.parse(last.commandJson).NotAudited,
    101 - REFUSAL_AUDITS_PER_WINDOW + 1,
    "the first record of the next minute says how many were not",
  );

  // A sender's long names are cut in the log and the audit record.
  refuse("w".repeat(10_000), "z1", "h".repeat(5_000));
  const long = audited.at(-1) as AuditEntry;
  assert.ok(long.commandJson.length < 1_024, `${long.commandJson.length}`);
  assert.match(long.principal?.name ?? "", /…\(cut, 10000 characters\)$/);
});
