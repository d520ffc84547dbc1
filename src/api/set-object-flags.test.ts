import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { fleetConfig } from "../core/fleet-config.js";
import { FakeClock } from "../testing/fake-clock.js";
import { type CoreTestServer, connectJson, startCoreTestServer } from "./core-test-server.js";
import { CommandService } from "./gen/svc/v1/command_service_pb.js";
import { QueryService } from "./gen/svc/v1/query_service_pb.js";

const CMD = "/svc.v1.CommandService/";
const Q = "/svc.v1.QueryService/";
const config = fleetConfig({ hosts: 2, servicesPerHost: 2, maxAttempts: 1 });
const clock = new FakeClock(Date.UTC(2026, 0, 1));

let srv: CoreTestServer;
before(async () => {
  srv = await startCoreTestServer(config, clock);
});
after(async () => {
  await srv.close();
});

const cases: {
  readonly name: string;
  readonly body: unknown;
  readonly want: 200 | "invalid_argument" | "not_found";
  readonly message?: RegExp;
}[] = [
  {
    name: "no switch at all",
    body: { target: { object: { host: "host-00000" } }, author: "ops" },
    want: "invalid_argument",
    message: /at least one of active_checks, passive_checks, notifications, flap_detection/,
  },
  {
    name: "no target",
    body: { notifications: false },
    want: "invalid_argument",
    message: /target is required/,
  },
  {
    name: "an object not configured",
    body: { target: { object: { host: "nope" } }, notifications: false },
    want: "not_found",
    message: /host "nope" is not configured/,
  },
  {
    name: "a selector that matches nothing is refused at once",
    body: { target: { selector: "team=nobody" }, activeChecks: false },
    want: "not_found",
    message: /selector "team=nobody" matches no object/,
  },
  {
    name: "a selector that does not parse",
    body: { target: { selector: "env in ()" }, activeChecks: false },
    want: "invalid_argument",
  },
  {
    name: "one service: notifications and flap detection off",
    body: {
      target: { object: { host: "host-00000", service: "svc-000" } },
      notifications: false,
      flapDetection: false,
      author: "alice",
    },
    want: 200,
  },
  {
    name: "a host: every switch off, then passive checks on again",
    body: {
      target: { object: { host: "host-00001" } },
      activeChecks: false,
      passiveChecks: false,
      notifications: false,
      flapDetection: false,
    },
    want: 200,
  },
  {
    name: "a switch set as it already is",
    body: { target: { object: { host: "host-00001" } }, passiveChecks: true },
    want: 200,
  },
];

describe("SetObjectFlags over Connect JSON", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const r = await connectJson(srv.url, `${CMD}SetObjectFlags`, c.body);
      if (c.want === 200) {
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return;
      }
      assert.equal(r.body.code, c.want, JSON.stringify(r.body));
      if (c.message) assert.match(r.body.message, c.message);
    });
  }

  it("ListStatus shows the switches turned off, in JSON and in binary pages", async () => {
    await srv.core.flush();
    const json = await connectJson(srv.url, `${Q}ListStatus`, {});
    assert.equal(json.status, 200, JSON.stringify(json.body));
    const rows = json.body.statuses as Record<string, unknown>[];
    const row = (host: string, service?: string) =>
      rows.find((s) => s.host === host && s.service === service) as Record<string, unknown>;
    assert.equal(row("host-00000", "svc-000").notificationsDisabled, true);
    assert.equal(row("host-00000", "svc-000").flapDetectionDisabled, true);
    assert.equal(row("host-00000", "svc-000").activeChecksDisabled, undefined);
    assert.equal(row("host-00001").activeChecksDisabled, true);
    assert.equal(row("host-00001").passiveChecksDisabled, undefined, "turned on again");
    assert.equal(row("host-00001").notificationsDisabled, true);
    assert.equal(row("host-00000").notificationsDisabled, undefined);
    // The predicate the scheduler asks (the record's first bytes only), with and without a worker.
    const p = srv.core.view.projection;
    assert.equal(p.switchedOff("host-00001", "activeChecks"), true);
    assert.equal(p.switchedOff("host-00001", "passiveChecks"), false);
    assert.equal(p.switchedOff("host-00001", "flapDetection"), true);
    assert.equal(p.switchedOff("host-00000!svc-000", "activeChecks"), false);
    assert.equal(p.switchedOff("host-00000!svc-000", "notifications"), true);
    assert.equal(p.switchedOff("host-00000", "notifications"), false);
    assert.equal(p.switchedOff("nope", "notifications"), false);

    const client = createClient(QueryService, createGrpcTransport({ baseUrl: srv.url }));
    const page = await client.listStatus({});
    const svc = page.statuses.find((s) => s.host === "host-00000" && s.service === "svc-000");
    assert.equal(svc?.notificationsDisabled, true);
    assert.equal(svc?.flapDetectionDisabled, true);
    assert.equal(svc?.activeChecksDisabled, false);
    const host = page.statuses.find((s) => s.host === "host-00001" && s.service === undefined);
    assert.deepEqual(
      [
        host?.activeChecksDisabled,
        host?.passiveChecksDisabled,
        host?.notificationsDisabled,
        host?.flapDetectionDisabled,
      ],
      [true, false, true, true],
    );
  });

  it("a result keeps the switches in the record, and history shows each change with its author", async () => {
    const r = await connectJson(srv.url, `${CMD}ProcessCheckResult`, {
      host: "host-00000",
      service: "svc-000",
      exitStatus: 2,
      output: "CRITICAL - down",
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await srv.core.flush();
    const s = srv.core.view.projection.status("host-00000!svc-000");
    assert.equal(s?.state, "CRITICAL");
    assert.equal(s?.notificationsDisabled, true);
    const h = await connectJson(srv.url, `${Q}ListHistory`, { host: "host-00000", service: "svc-000" });
    const flags = (h.body.entries as Record<string, unknown>[]).filter(
      (e) => e.kind === "ObjectFlagsChanged",
    );
    assert.equal(flags.length, 1, JSON.stringify(h.body));
    assert.equal(flags[0]?.author, "alice");
    assert.equal(flags[0]?.comment, "off: notifications, flap detection");
    const host = await connectJson(srv.url, `${Q}ListHistory`, { host: "host-00001" });
    const changes = (host.body.entries as Record<string, unknown>[]).filter(
      (e) => e.kind === "ObjectFlagsChanged",
    );
    assert.equal(changes.length, 2, "the second command changed passive checks; the third nothing");
  });

  it("a passive result for an object whose passive checks are off is refused at once, on every path", async () => {
    const off = await connectJson(srv.url, `${CMD}SetObjectFlags`, {
      target: { object: { host: "host-00000", service: "svc-001" } },
      passiveChecks: false,
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    await srv.core.flush();
    // Connect JSON and gRPC (both decoded on the writer's thread), and Core.submit (the command file).
    const r = await connectJson(srv.url, `${CMD}ProcessCheckResult`, {
      host: "host-00000",
      service: "svc-001",
      exitStatus: 2,
    });
    assert.equal(r.body.code, "failed_precondition", JSON.stringify(r.body));
    assert.match(r.body.message, /passive checks of host-00000!svc-001 are disabled/);
    const client = createClient(CommandService, createGrpcTransport({ baseUrl: srv.url }));
    await assert.rejects(
      client.processCheckResults({
        results: [
          { host: "host-00001", service: "svc-000", exitStatus: 0 },
          { host: "host-00000", service: "svc-001", exitStatus: 0 },
        ],
      }),
      (e: unknown) => {
        assert.ok(e instanceof ConnectError);
        assert.equal(e.code, Code.FailedPrecondition);
        assert.match(e.message, /results\[1\]: passive checks of host-00000!svc-001 are disabled/);
        return true;
      },
    );
    await assert.rejects(
      srv.core.submit([
        {
          type: "ProcessCheckResult",
          result: {
            host: "host-00000",
            service: "svc-001",
            exitStatus: 0,
            output: "OK",
            longOutput: "",
            perfdata: [],
            checkedAt: clock.now(),
            durationMs: 0,
            source: "passive",
          },
        },
      ]),
      /passive checks of host-00000!svc-001 are disabled/,
    );
    // An active result (a check this server ran) is still taken.
    await srv.core.submit([
      {
        type: "ProcessCheckResult",
        result: {
          host: "host-00000",
          service: "svc-001",
          exitStatus: 1,
          output: "WARNING",
          longOutput: "",
          perfdata: [],
          checkedAt: clock.now(),
          durationMs: 0,
          source: "active",
        },
      },
    ]);
    await srv.core.flush();
    assert.equal(srv.core.view.projection.status("host-00000!svc-001")?.state, "WARNING");
  });
});
