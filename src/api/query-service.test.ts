import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { fleetConfig } from "../core/fleet-config.js";
import type { Config, ContactConfig, SinkConfig } from "../model/config.js";
import { FakeClock } from "../testing/fake-clock.js";
import { type CoreTestServer, connectJson, startCoreTestServer } from "./core-test-server.js";
import { QueryService } from "./gen/svc/v1/query_service_pb.js";
import { State } from "./gen/svc/v1/types_pb.js";

const Q = "/svc.v1.QueryService/";
const contacts: ContactConfig[] = [
  { name: "oncall", type: "webhook", url: "https://hooks.example/secret-token", labels: { team: "ops" } },
  { name: "alice", type: "email", address: "alice@example.com", labels: {} },
];
const sinks: SinkConfig[] = [
  {
    name: "metrics",
    type: "http",
    url: "https://user:pass@metrics.example/write",
    headers: { authorization: "Bearer secret" },
    cursor: "",
    input: "metrics",
    selector: "env=prod",
    batchSize: 1000,
    flushIntervalMs: 5000,
  },
];
// 4 hosts × (1 + 3 services) = 16 objects; even hosts are env=prod.
const config: Config = {
  ...fleetConfig({ hosts: 4, servicesPerHost: 3, maxAttempts: 1 }),
  contacts: new Map(contacts.map((c) => [c.name, c])),
  views: new Map([
    ["prod web", { name: "prod web", selector: "env=prod, tier=web", description: "shop front" }],
  ]),
  sinks: new Map(sinks.map((s) => [s.name, s])),
};
const clock = new FakeClock(Date.UTC(2026, 0, 1));

let srv: CoreTestServer;
before(async () => {
  srv = await startCoreTestServer(config, clock);
  const r = await connectJson(srv.url, "/svc.v1.CommandService/ProcessCheckResults", {
    results: [
      { host: "host-00000", service: "svc-001", exitStatus: 2, output: "CRITICAL - first" },
      { host: "host-00000", service: "svc-001", exitStatus: 0, output: "OK - back" },
      { host: "host-00003", exitStatus: 2, output: "DOWN" },
    ],
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await srv.core.flush();
});
after(async () => {
  await srv.close();
});

type Body = Record<string, unknown>;
const keyOf = (s: { host: string; service?: string }): string =>
  s.service ? `${s.host}!${s.service}` : s.host;

describe("QueryService.ListStatus", () => {
  const table: {
    name: string;
    req: Body;
    keys?: string[];
    total?: number;
    code?: string;
    message?: RegExp;
  }[] = [
    {
      name: "one service",
      req: { host: "host-00000", service: "svc-001" },
      keys: ["host-00000!svc-001"],
      total: 1,
    },
    {
      name: "one host and its services, in order",
      req: { host: "host-00002" },
      keys: ["host-00002", "host-00002!svc-000", "host-00002!svc-001", "host-00002!svc-002"],
      total: 4,
    },
    {
      name: "selector narrows the fleet (a service inherits its host's labels)",
      req: { selector: "env=prod, tier=db" },
      keys: ["host-00000!svc-001", "host-00002!svc-001"],
      total: 2,
    },
    {
      name: "host and selector together",
      req: { host: "host-00002", selector: "tier=web" },
      keys: ["host-00002!svc-000", "host-00002!svc-002"],
      total: 2,
    },
    { name: "the empty request is the fleet", req: {}, total: 16 },
    { name: "unknown host", req: { host: "nope" }, code: "not_found", message: /host "nope"/ },
    {
      name: "bad selector",
      req: { selector: "Env=prod" },
      code: "invalid_argument",
      message: /invalid label key/,
    },
    { name: "bad page token", req: { pageToken: "!!" }, code: "invalid_argument", message: /page token/ },
    { name: "negative page size", req: { pageSize: -1 }, code: "invalid_argument", message: /page_size/ },
  ];
  for (const c of table) {
    it(c.name, async () => {
      const r = await connectJson(srv.url, `${Q}ListStatus`, c.req);
      if (c.code !== undefined) {
        assert.equal(r.body.code, c.code, JSON.stringify(r.body));
        if (c.message) assert.match(r.body.message, c.message);
        return;
      }
      assert.equal(r.status, 200, JSON.stringify(r.body));
      if (c.keys) assert.deepEqual(r.body.statuses.map(keyOf), c.keys);
      assert.equal(r.body.totalSize, c.total);
    });
  }

  it("shows state, output, check type and labels; PENDING without a result", async () => {
    const r = await connectJson(srv.url, `${Q}ListStatus`, { host: "host-00000" });
    const [host, svc0, svc1] = r.body.statuses;
    assert.equal(host.state, "STATE_PENDING");
    assert.equal(host.checkType, "passive");
    assert.deepEqual(host.labels, { env: "prod", rack: "r0" });
    assert.equal(svc0.state, "STATE_PENDING");
    assert.equal(svc1.state, "STATE_OK");
    assert.equal(svc1.output, "OK - back");
    assert.equal(svc1.lastStateChange, "2026-01-01T00:00:00Z");
    assert.deepEqual(svc1.labels, { env: "prod", rack: "r0", tier: "db" });
  });

  it("pages through the fleet exactly once, in a stable order", async () => {
    const seen: string[] = [];
    let token = "";
    for (let i = 0; i < 10; i++) {
      const r = await connectJson(srv.url, `${Q}ListStatus`, { pageSize: 5, pageToken: token });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      seen.push(...r.body.statuses.map(keyOf));
      token = r.body.nextPageToken ?? "";
      if (token === "") break;
    }
    const expected: string[] = [];
    for (const h of ["host-00000", "host-00001", "host-00002", "host-00003"]) {
      expected.push(h, `${h}!svc-000`, `${h}!svc-001`, `${h}!svc-002`);
    }
    assert.deepEqual(seen, expected);
  });
});

describe("QueryService reads", () => {
  it("ListHistory: the global feed newest first, and one object", async () => {
    const all = await connectJson(srv.url, `${Q}ListHistory`, {});
    assert.deepEqual(
      all.body.entries.map((e: Body) => [e.kind, keyOf(e as { host: string; service?: string }), e.state]),
      [
        ["StateChange", "host-00003", "STATE_DOWN"],
        ["StateChange", "host-00000!svc-001", "STATE_OK"],
        ["StateChange", "host-00000!svc-001", "STATE_CRITICAL"],
      ],
    );
    const one = await connectJson(srv.url, `${Q}ListHistory`, {
      host: "host-00000",
      service: "svc-001",
      pageSize: 1,
    });
    assert.equal(one.body.entries.length, 1);
    assert.equal(one.body.entries[0].state, "STATE_OK");
    const next = await connectJson(srv.url, `${Q}ListHistory`, {
      host: "host-00000",
      service: "svc-001",
      pageSize: 1,
      pageToken: one.body.nextPageToken,
    });
    assert.equal(next.body.entries[0].state, "STATE_CRITICAL");
    assert.equal(next.body.nextPageToken ?? "", "");
  });

  it("ListObjects: every object with its labels, narrowed by selector", async () => {
    const r = await connectJson(srv.url, `${Q}ListObjects`, { selector: "rack=r1" });
    assert.equal(r.body.totalSize, 4);
    assert.deepEqual(r.body.objects[0], {
      host: "host-00001",
      labels: { env: "dev", rack: "r1" },
      checkType: "passive",
      zone: "default",
    });
  });

  it("ListContacts omits target payloads", async () => {
    const r = await connectJson(srv.url, `${Q}ListContacts`, {});
    assert.deepEqual(r.body.contacts, [
      { name: "alice", type: "email" },
      { name: "oncall", type: "webhook", labels: { team: "ops" } },
    ]);
    assert.doesNotMatch(JSON.stringify(r.body), /secret|example/);
  });

  it("ListViews", async () => {
    const r = await connectJson(srv.url, `${Q}ListViews`, {});
    assert.deepEqual(r.body.views, [
      { name: "prod web", selector: "env=prod, tier=web", description: "shop front" },
    ]);
  });

  it("ListSinks omits URLs and headers", async () => {
    const r = await connectJson(srv.url, `${Q}ListSinks`, {});
    assert.deepEqual(r.body.sinks, [
      // Without a running sink set (no server here) a sink is "stopped"; zero counters are omitted.
      { name: "metrics", type: "http", input: "metrics", selector: "env=prod", state: "stopped" },
    ]);
    assert.doesNotMatch(JSON.stringify(r.body), /secret|pass/);
  });

  it("ListWorkers without -nats: no workers (not an error) over Connect JSON, gRPC and gRPC-Web", async () => {
    const r = await connectJson(srv.url, `${Q}ListWorkers`, {});
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // A server without zones schedules everything itself.
    assert.deepEqual(r.body, { leading: true });
    for (const transport of [
      createGrpcTransport({ baseUrl: srv.url }),
      createGrpcWebTransport({ baseUrl: srv.url, httpVersion: "1.1" }),
    ]) {
      const w = await createClient(QueryService, transport).listWorkers({});
      assert.deepEqual([w.workers.length, w.leading], [0, true]);
    }
  });

  it("ListStatus over gRPC", async () => {
    const client = createClient(QueryService, createGrpcTransport({ baseUrl: srv.url }));
    const r = await client.listStatus({ host: "host-00003" });
    assert.equal(r.statuses[0]?.state, State.DOWN);
    assert.equal(r.totalSize, 4);
  });
});
