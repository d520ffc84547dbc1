import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { fleetConfig } from "../core/fleet-config.js";
import { type CoreTestServer, connectJson, startCoreTestServer } from "./core-test-server.js";
import { CommandService } from "./gen/svc/v1/command_service_pb.js";

// Commands the state the projection shows already refuses are refused at once (src/core/precheck.ts),
// over every protocol; what the engine would accept is not.

const CMD = "/svc.v1.CommandService/";
// host-00000 env=prod rack=r0, host-00001 env=dev rack=r1, host-00002 env=prod rack=r2;
// services svc-000 (tier=web) and svc-001 (tier=db) on each.
const config = fleetConfig({ hosts: 3, servicesPerHost: 2, maxAttempts: 1 });

let srv: CoreTestServer;
before(async () => {
  srv = await startCoreTestServer(config);
  const post = async (rpc: string, body: unknown) => {
    const r = await connectJson(srv.url, CMD + rpc, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
  };
  // host-00000!svc-000 CRITICAL, host-00000!svc-001 OK, host-00001!svc-000 CRITICAL and
  // acknowledged, host-00001 UP; everything on host-00002 PENDING.
  await post("ProcessCheckResults", {
    results: [
      { host: "host-00000", service: "svc-000", exitStatus: 2, output: "CRITICAL" },
      { host: "host-00000", service: "svc-001", exitStatus: 0, output: "OK" },
      { host: "host-00001", service: "svc-000", exitStatus: 2, output: "CRITICAL" },
      { host: "host-00001", exitStatus: 0, output: "UP" },
    ],
  });
  await srv.core.flush();
  await post("AcknowledgeProblem", {
    target: { object: { host: "host-00001", service: "svc-000" } },
    author: "ops",
  });
  await srv.core.flush();
});
after(async () => {
  await srv.close();
});

type Rpc = "AcknowledgeProblem" | "RemoveAcknowledgement" | "ScheduleDowntime" | "DeleteDowntime";

interface Case {
  readonly name: string;
  readonly rpc: Rpc;
  readonly body: Record<string, unknown>;
  readonly code: "failed_precondition" | "not_found";
  readonly message: RegExp;
}

const object = (host: string, service?: string) => ({
  target: { object: service === undefined ? { host } : { host, service } },
});
const selector = (s: string) => ({ target: { selector: s } });
const hour = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();

const cases: Case[] = [
  {
    name: "acknowledging a PENDING object",
    rpc: "AcknowledgeProblem",
    body: { ...object("host-00002", "svc-000"), author: "ops" },
    code: "failed_precondition",
    message: /^host-00002!svc-000 is PENDING: there is no problem to acknowledge$/,
  },
  {
    name: "acknowledging an OK object",
    rpc: "AcknowledgeProblem",
    body: { ...object("host-00000", "svc-001"), author: "ops" },
    code: "failed_precondition",
    message: /^host-00000!svc-001 is OK: there is no problem to acknowledge$/,
  },
  {
    name: "acknowledging an UP host",
    rpc: "AcknowledgeProblem",
    body: { ...object("host-00001"), author: "ops" },
    code: "failed_precondition",
    message: /^host-00001 is UP/,
  },
  {
    name: "acknowledging an acknowledged problem",
    rpc: "AcknowledgeProblem",
    body: { ...object("host-00001", "svc-000"), author: "ops" },
    code: "failed_precondition",
    message: /^host-00001!svc-000 is already acknowledged$/,
  },
  {
    name: "acknowledging by a selector that matches nothing",
    rpc: "AcknowledgeProblem",
    body: { ...selector("rack=r9"), author: "ops" },
    code: "not_found",
    message: /^selector "rack=r9" matches no configured object$/,
  },
  {
    name: "acknowledging by a selector whose objects have no problem",
    rpc: "AcknowledgeProblem",
    body: { ...selector("rack=r2"), author: "ops" },
    code: "failed_precondition",
    message: /^no object selector "rack=r2" matches has a problem to acknowledge$/,
  },
  {
    name: "removing an acknowledgement that is not there",
    rpc: "RemoveAcknowledgement",
    body: object("host-00000", "svc-000"),
    code: "failed_precondition",
    message: /^host-00000!svc-000 is not acknowledged$/,
  },
  {
    name: "removing the acknowledgement of a PENDING object",
    rpc: "RemoveAcknowledgement",
    body: object("host-00002"),
    code: "failed_precondition",
    message: /^host-00002 is not acknowledged$/,
  },
  {
    name: "removing acknowledgements by a selector that matches nothing",
    rpc: "RemoveAcknowledgement",
    body: selector("env=staging"),
    code: "not_found",
    message: /^selector "env=staging" matches no configured object$/,
  },
  {
    name: "removing acknowledgements by a selector none of whose objects is acknowledged",
    rpc: "RemoveAcknowledgement",
    body: selector("env=prod"),
    code: "failed_precondition",
    message: /^no object selector "env=prod" matches is acknowledged$/,
  },
  {
    name: "a downtime for a selector that matches nothing",
    rpc: "ScheduleDowntime",
    body: { ...selector("rack=r7, tier=web"), start: hour(0), end: hour(1), author: "ops" },
    code: "not_found",
    message: /^selector "rack=r7, tier=web" matches no configured object$/,
  },
  {
    name: "a downtime for an object that is not configured",
    rpc: "ScheduleDowntime",
    body: { ...object("host-00009"), start: hour(0), end: hour(1), author: "ops" },
    code: "not_found",
    message: /^host "host-00009" is not configured$/,
  },
  {
    name: "deleting a downtime that does not exist",
    rpc: "DeleteDowntime",
    body: { id: "dt-nope" },
    code: "not_found",
    message: /^downtime "dt-nope" does not exist$/,
  },
];

describe("commands the projection already refuses are refused at once", () => {
  /** Every case leaves the state as it was: refused, nothing enqueued. */
  const unchanged = async (seq: number) => {
    await srv.core.flush();
    assert.equal(srv.core.view.projection.eventSeq(), seq, "nothing was enqueued or applied");
  };

  describe("over Connect JSON", () => {
    for (const c of cases) {
      it(c.name, async () => {
        const seq = srv.core.view.projection.eventSeq();
        const r = await connectJson(srv.url, CMD + c.rpc, c.body);
        assert.equal(r.body.code, c.code, JSON.stringify(r.body));
        assert.match(r.body.message, c.message);
        await unchanged(seq);
      });
    }
  });

  describe("over gRPC", () => {
    for (const c of cases) {
      it(c.name, async () => {
        const client = createClient(CommandService, createGrpcTransport({ baseUrl: srv.url }));
        const method = `${c.rpc[0]?.toLowerCase()}${c.rpc.slice(1)}` as keyof typeof CommandService.method;
        const input = CommandService.method[method].input;
        const call = client[method] as (req: unknown) => Promise<unknown>;
        const seq = srv.core.view.projection.eventSeq();
        await assert.rejects(call(fromJson(input, c.body as JsonValue)), (e: unknown) => {
          assert.ok(e instanceof ConnectError, String(e));
          assert.equal(e.code, c.code === "not_found" ? Code.NotFound : Code.FailedPrecondition);
          assert.match(e.rawMessage, c.message);
          return true;
        });
        await unchanged(seq);
      });
    }
  });

  it("what the projection does not show yet is left to the engine", async () => {
    // A problem whose result is submitted in the same turn, so certainly not visible yet: the
    // acknowledgement right behind it is accepted, and applied after it.
    const host = "host-00002";
    const service = "svc-001";
    const result = srv.core.submit([
      {
        type: "ProcessCheckResult",
        result: {
          host,
          service,
          exitStatus: 2,
          output: "CRITICAL",
          longOutput: "",
          perfdata: [],
          checkedAt: Date.now(),
          durationMs: 0,
          source: "passive",
        },
      },
    ]);
    const ack = srv.core.submit([
      {
        type: "AcknowledgeProblem",
        target: { object: { host, service } },
        sticky: false,
        author: "ops",
        comment: "",
      },
    ]);
    await Promise.all([result, ack]);
    await srv.core.flush();
    assert.equal(srv.core.view.projection.status("host-00002!svc-001")?.acknowledgement?.author, "ops");
  });

  it("a batch's earlier command is seen: a result and the acknowledgement of its problem", async () => {
    const host = "host-00002";
    await srv.core.submit([
      {
        type: "ProcessCheckResult",
        result: {
          host,
          exitStatus: 2,
          output: "DOWN",
          longOutput: "",
          perfdata: [],
          checkedAt: Date.now(),
          durationMs: 0,
          source: "passive",
        },
      },
      { type: "AcknowledgeProblem", target: { object: { host } }, sticky: false, author: "ops", comment: "" },
    ]);
    await srv.core.flush();
    assert.equal(srv.core.view.projection.status(host)?.acknowledgement?.author, "ops");
  });

  it("a selector with one object that can take it is accepted", async () => {
    const r = await connectJson(srv.url, `${CMD}AcknowledgeProblem`, {
      ...selector("env=prod"),
      author: "ops",
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await srv.core.flush();
    assert.equal(srv.core.view.projection.status("host-00000!svc-000")?.acknowledgement?.author, "ops");
  });
});
