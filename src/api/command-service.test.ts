import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { fleetConfig } from "../core/fleet-config.js";
import { FakeClock } from "../testing/fake-clock.js";
import { type CoreTestServer, connectJson, startCoreTestServer } from "./core-test-server.js";
import { CommandService } from "./gen/svc/v1/command_service_pb.js";

const CMD = "/svc.v1.CommandService/";
const config = fleetConfig({ hosts: 3, servicesPerHost: 2, maxAttempts: 1 });
const clock = new FakeClock(Date.UTC(2026, 0, 1));

let srv: CoreTestServer;
before(async () => {
  srv = await startCoreTestServer(config, clock);
});
after(async () => {
  await srv.close();
});

interface Case {
  readonly name: string;
  readonly rpc: string;
  readonly body: unknown;
  /** 200, or the Connect error code. */
  readonly want: 200 | "invalid_argument" | "not_found";
  readonly message?: RegExp;
}

const cases: Case[] = [
  {
    name: "one result",
    rpc: "ProcessCheckResult",
    body: {
      host: "host-00000",
      service: "svc-000",
      exitStatus: 2,
      output: "CRITICAL - down | rta=12ms;100;200;0",
    },
    want: 200,
  },
  {
    name: "a batch",
    rpc: "ProcessCheckResults",
    body: {
      results: [
        { host: "host-00001", exitStatus: 0, output: "UP" },
        { host: "host-00002", exitStatus: 1 },
      ],
    },
    want: 200,
  },
  {
    name: "unknown host",
    rpc: "ProcessCheckResult",
    body: { host: "nope", exitStatus: 0 },
    want: "not_found",
    message: /host "nope" is not configured/,
  },
  {
    name: "a batch is all-or-nothing and names the bad result",
    rpc: "ProcessCheckResults",
    body: {
      results: [
        { host: "host-00001", service: "svc-000", exitStatus: 3, output: "never applied" },
        { host: "host-00001", service: "http", exitStatus: 0 },
      ],
    },
    want: "not_found",
    message: /^results\[1\]: service "http" is not configured on host "host-00001"$/,
  },
  {
    name: "bad exit status",
    rpc: "ProcessCheckResult",
    body: { host: "host-00000", exitStatus: 4 },
    want: "invalid_argument",
    message: /exit status 4/,
  },
  {
    name: "acknowledge without a target",
    rpc: "AcknowledgeProblem",
    body: { author: "ops" },
    want: "invalid_argument",
    message: /target is required/,
  },
  {
    name: "acknowledge with a bad selector",
    rpc: "AcknowledgeProblem",
    body: { target: { selector: "env in ()" }, author: "ops" },
    want: "invalid_argument",
    message: /column 9: expected at least one value/,
  },
  {
    name: "acknowledge one service",
    rpc: "AcknowledgeProblem",
    body: {
      target: { object: { host: "host-00000", service: "svc-000" } },
      sticky: true,
      author: "ops",
      comment: "on it",
    },
    want: 200,
  },
  {
    name: "remove acknowledgements by a selector that matches nothing",
    rpc: "RemoveAcknowledgement",
    body: { target: { selector: "rack=r9" } },
    want: "not_found",
    message: /selector "rack=r9" matches no configured object/,
  },
  {
    name: "downtime ending before it starts",
    rpc: "ScheduleDowntime",
    body: { target: { selector: "env=prod" }, start: "2026-01-02T00:00:00Z", end: "2026-01-01T12:00:00Z" },
    want: "invalid_argument",
    message: /ends before it starts/,
  },
  {
    name: "downtime without an end",
    rpc: "ScheduleDowntime",
    body: { target: { selector: "env=prod" }, start: "2026-01-02T00:00:00Z" },
    want: "invalid_argument",
    message: /end is required/,
  },
  {
    name: "delete an unknown downtime",
    rpc: "DeleteDowntime",
    body: { id: "dt-nope" },
    want: "not_found",
    message: /downtime "dt-nope" does not exist/,
  },
  {
    name: "custom notification without a target",
    rpc: "SendCustomNotification",
    body: { author: "ops", comment: "hi" },
    want: "invalid_argument",
    message: /target is required/,
  },
  {
    name: "custom notification for an unknown service",
    rpc: "SendCustomNotification",
    body: { target: { object: { host: "host-00000", service: "nope" } }, author: "ops" },
    want: "not_found",
    message: /service "nope" is not configured/,
  },
  {
    name: "forced custom notification for one service",
    rpc: "SendCustomNotification",
    body: {
      target: { object: { host: "host-00000", service: "svc-000" } },
      author: "ops",
      comment: "call me",
      force: true,
    },
    want: 200,
  },
  {
    name: "custom notification by selector",
    rpc: "SendCustomNotification",
    body: { target: { selector: "env=dev" }, author: "ops", comment: "fyi" },
    want: 200,
  },
  {
    name: "acknowledge without notifying",
    rpc: "AcknowledgeProblem",
    // host-00002 is DOWN and unacknowledged (the batch above), visible or not yet: accepted either
    // way. A selector of objects with no problem was refused or accepted as the earlier selector
    // command was or was not visible yet (the precheck's timing rule).
    body: { target: { object: { host: "host-00002" } }, author: "ops", comment: "quiet", notify: false },
    want: 200,
  },
];

describe("CommandService over Connect JSON", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const r = await connectJson(srv.url, CMD + c.rpc, c.body);
      if (c.want === 200) {
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return;
      }
      assert.equal(r.body.code, c.want, JSON.stringify(r.body));
      if (c.message) assert.match(r.body.message, c.message);
    });
  }

  it("applies what it acknowledged, and nothing of a rejected batch", async () => {
    await srv.core.flush();
    const { projection } = srv.core.view;
    const s = projection.status("host-00000!svc-000");
    assert.equal(s?.state, "CRITICAL");
    assert.equal(s?.output, "CRITICAL - down");
    assert.deepEqual(s?.perfdata, [{ label: "rta", value: 12, uom: "ms", warn: "100", crit: "200", min: 0 }]);
    assert.equal(s?.acknowledgement?.author, "ops");
    assert.equal(
      projection.status("host-00002")?.state,
      "DOWN",
      "a passive host status 1 is DOWN, its state",
    );
    assert.equal(projection.status("host-00001!svc-000"), undefined, "the rejected batch left no trace");
  });

  it("schedules a downtime, returns its id, and deletes it by that id", async () => {
    const start = new Date(clock.now()).toISOString();
    const end = new Date(clock.now() + 3_600_000).toISOString();
    const r = await connectJson(srv.url, `${CMD}ScheduleDowntime`, {
      target: { object: { host: "host-00000" } },
      start,
      end,
      author: "ops",
      comment: "patching",
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.match(r.body.id, /^dt-/);
    const d = await connectJson(srv.url, `${CMD}DeleteDowntime`, { id: r.body.id });
    assert.equal(d.status, 200, JSON.stringify(d.body));
    await srv.core.flush();
    assert.equal(srv.core.view.projection.downtime(r.body.id), undefined);
  });
});

describe("CommandService over gRPC", () => {
  it("accepts a batch and reports how many", async () => {
    const client = createClient(CommandService, createGrpcTransport({ baseUrl: srv.url }));
    const r = await client.processCheckResults({
      results: [
        { host: "host-00001", service: "svc-001", exitStatus: 1, output: "WARNING - slow" },
        { host: "host-00002", service: "svc-001", exitStatus: 0, output: "OK" },
      ],
    });
    assert.equal(r.accepted, 2);
    await assert.rejects(client.processCheckResult({ host: "host-00009", exitStatus: 0 }), (e: unknown) => {
      assert.ok(e instanceof ConnectError);
      assert.equal(e.code, Code.NotFound);
      return true;
    });
  });
});
