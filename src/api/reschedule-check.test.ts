import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fixtureConfig } from "../engine/scheduler/fixtures.js";
import { FakeClock } from "../testing/fake-clock.js";
import { type CoreTestServer, connectJson, startCoreTestServer } from "./core-test-server.js";

const CMD = "/svc.v1.CommandService/";
const Q = "/svc.v1.QueryService/";
const PASSIVE = { type: "passive", freshnessThresholdMs: 3_600_000, staleStatus: "UNKNOWN" } as const;
// web: an active host with an active and a passive service; push: only passive objects.
const config = fixtureConfig([
  { host: "web" },
  { host: "web", service: "http", labels: { team: "web" } },
  { host: "web", service: "push", probe: PASSIVE as never, labels: { team: "web", kind: "push" } },
  { host: "push", service: "in", probe: PASSIVE as never, labels: { team: "push" } },
]);
const clock = new FakeClock(Date.UTC(2026, 0, 1));

let srv: CoreTestServer;
before(async () => {
  srv = await startCoreTestServer(config, clock);
});
after(async () => {
  await srv.close();
});

const pending = () =>
  Object.fromEntries(
    [...srv.core.view.projection.reschedules()].map((r) => [r.key, [r.runAt - clock.now(), r.force]]),
  );

describe("RescheduleCheck", () => {
  const refused: { name: string; body: unknown; code: string; message: RegExp }[] = [
    {
      name: "a passive object",
      body: { target: { object: { host: "web", service: "push" } } },
      code: "failed_precondition",
      message: /web!push has a passive check/,
    },
    {
      name: "a selector that matches nothing",
      body: { target: { selector: "team=nobody" } },
      code: "not_found",
      message: /matches no object/,
    },
    {
      name: "a selector that matches only passive objects",
      body: { target: { selector: "team=push" } },
      code: "failed_precondition",
      message: /has an active check/,
    },
    {
      name: "an unknown object",
      body: { target: { object: { host: "nope" } } },
      code: "not_found",
      message: /host "nope" is not configured/,
    },
    { name: "no target", body: {}, code: "invalid_argument", message: /target is required/ },
    {
      name: "a bad selector",
      body: { target: { selector: "team in (" } },
      code: "invalid_argument",
      message: /selector/,
    },
  ];
  for (const c of refused) {
    it(`refuses ${c.name} at once`, async () => {
      const r = await connectJson(srv.url, `${CMD}RescheduleCheck`, c.body);
      assert.equal(r.body.code, c.code, JSON.stringify(r.body));
      assert.match(r.body.message, c.message);
    });
  }

  it("reschedules one object now, and a selector's active objects at a time, forced", async () => {
    const now = await connectJson(srv.url, `${CMD}RescheduleCheck`, { target: { object: { host: "web" } } });
    assert.equal(now.status, 200, JSON.stringify(now.body));
    const at = new Date(clock.now() + 300_000).toISOString();
    const sel = await connectJson(srv.url, `${CMD}RescheduleCheck`, {
      target: { selector: "team=web" },
      at,
      force: true,
      author: "carol",
    });
    assert.equal(sel.status, 200, JSON.stringify(sel.body));
    await srv.core.flush();
    // The selector skipped web!push (passive).
    assert.deepEqual(pending(), { web: [0, false], "web!http": [300_000, true] });
    const h = await connectJson(srv.url, `${Q}ListHistory`, { host: "web", service: "http" });
    assert.equal(h.body.entries[0].kind, "CheckRescheduled", JSON.stringify(h.body));
    assert.match(h.body.entries[0].comment, /forced check at 2026-01-01T00:05:00.000Z/);
    assert.equal(h.body.entries[0].author, "carol", "the request's author, as history shows it");
  });

  it("a result checked at or after the time settles the reschedule; an earlier one does not", async () => {
    clock.advance(1_000);
    const results = [
      { host: "web", exitStatus: 0, output: "UP" },
      { host: "web", service: "http", exitStatus: 0, output: "OK" },
    ];
    const r = await connectJson(srv.url, `${CMD}ProcessCheckResults`, { results });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await srv.core.flush();
    assert.deepEqual(pending(), { "web!http": [299_000, true] });
  });

  it("refuses at once an object whose active checks are switched off, unless forced", async () => {
    const off = await connectJson(srv.url, `${CMD}SetObjectFlags`, {
      target: { object: { host: "web", service: "http" } },
      activeChecks: false,
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    await srv.core.flush();
    const target = { object: { host: "web", service: "http" } };
    const r = await connectJson(srv.url, `${CMD}RescheduleCheck`, { target });
    assert.equal(r.body.code, "failed_precondition", JSON.stringify(r.body));
    assert.match(r.body.message, /web!http has its active checks switched off/);
    clock.advance(1_000); // after the last result, so that the new time is not already run
    const forced = await connectJson(srv.url, `${CMD}RescheduleCheck`, { target, force: true });
    assert.equal(forced.status, 200, JSON.stringify(forced.body));
    await srv.core.flush();
    assert.deepEqual(pending()["web!http"], [0, true]);
  });
});
