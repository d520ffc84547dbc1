/**
 * ListHistory's filters, pages and refusals, and ListPerfdata, over Connect JSON and gRPC on a real
 * Core: the plain request (served from the projection's ring) and the same entries read from the
 * log agree; a token works only for the request that made it; bad input gets its Connect code.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Core } from "../core/core.js";
import { fleetConfig } from "../core/fleet-config.js";
import { HISTORY_KINDS } from "../store/history-of-event.js";
import { FakeClock } from "../testing/fake-clock.js";
import {
  type CoreTestServer,
  connectJson,
  type JsonBody,
  serveCore,
  startCoreTestServer,
} from "./core-test-server.js";
import { QueryService } from "./gen/svc/v1/query_service_pb.js";

const Q = "/svc.v1.QueryService/";
const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const clock = new FakeClock(T0);
// 4 hosts × (1 + 3 services); even hosts are env=prod.
const config = fleetConfig({ hosts: 4, servicesPerHost: 3, maxAttempts: 1 });

let srv: CoreTestServer;
const list = (body: unknown) => connectJson(srv.url, `${Q}ListHistory`, body);
const keyOf = (e: { host: string; service?: string }) => (e.service ? `${e.host}!${e.service}` : e.host);

/** Every entry of a request, through its pages. */
async function walk(body: Record<string, unknown>): Promise<JsonBody[]> {
  const out: JsonBody[] = [];
  let pageToken = "";
  for (let pages = 0; pages < 1000; pages++) {
    const r = await list({ ...body, pageToken });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    out.push(...(r.body.entries ?? []));
    pageToken = r.body.nextPageToken ?? "";
    if (pageToken === "") return out;
  }
  assert.fail("no last page");
}

before(async () => {
  srv = await startCoreTestServer(config, clock);
  // Ten minutes of results: host-00000's services change state every minute, the others once.
  for (let m = 0; m < 10; m++) {
    const r = await connectJson(srv.url, "/svc.v1.CommandService/ProcessCheckResults", {
      results: [
        {
          host: "host-00000",
          service: "svc-000",
          exitStatus: m % 2 === 0 ? 2 : 0,
          output: `m${m} | t=${m}s;5;8;0`,
        },
        { host: "host-00000", service: "svc-001", exitStatus: m % 3 === 0 ? 1 : 0, output: `m${m}` },
        { host: `host-0000${1 + (m % 3)}`, exitStatus: m < 5 ? 2 : 0, output: `h${m}` },
      ],
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await srv.core.flush();
    clock.advance(MINUTE);
  }
});
after(async () => {
  await srv.close();
});

describe("ListHistory", () => {
  it("the plain request (from the ring) and the log agree, paged either way", async () => {
    const ring = await walk({ pageSize: 4 });
    assert.ok(ring.length > 10, `${ring.length} entries`);
    // Every kind named: the same entries, read from the log.
    const logged = await walk({ pageSize: 4, kinds: [...HISTORY_KINDS] });
    assert.deepEqual(logged, ring);
    const oldest = await walk({ pageSize: 3, oldestFirst: true });
    assert.deepEqual(oldest, [...ring].reverse());
    const one = await walk({ host: "host-00000", service: "svc-000", pageSize: 2 });
    assert.deepEqual(
      one,
      ring.filter((e) => keyOf(e) === "host-00000!svc-000"),
    );
  });

  it("filters by time, kind and selector", async () => {
    const all = await walk({ pageSize: 1000 });
    const cases: { body: Record<string, unknown>; want: (e: JsonBody) => boolean }[] = [
      {
        body: {
          since: new Date(T0 + 3 * MINUTE).toISOString(),
          until: new Date(T0 + 6 * MINUTE).toISOString(),
        },
        want: (e) => Date.parse(e.at) >= T0 + 3 * MINUTE && Date.parse(e.at) < T0 + 6 * MINUTE,
      },
      { body: { kinds: ["StateChange"] }, want: (e) => e.kind === "StateChange" },
      { body: { selector: "env=dev" }, want: (e) => ["host-00001", "host-00003"].includes(e.host) },
      { body: { selector: "env=prod", host: "host-00002" }, want: (e) => keyOf(e) === "host-00002" },
      { body: { selector: "env=dev", host: "host-00002" }, want: () => false },
      { body: { selector: "tier=web" }, want: (e) => ["svc-000", "svc-002"].includes(e.service) },
    ];
    for (const c of cases) {
      for (const oldestFirst of [false, true]) {
        const got = await walk({ ...c.body, oldestFirst, pageSize: 2 });
        const want = all.filter(c.want);
        assert.deepEqual(got, oldestFirst ? want.reverse() : want, JSON.stringify(c.body));
      }
    }
  });

  it("a token belongs to its request", async () => {
    const first = await list({ pageSize: 2, kinds: ["StateChange"] });
    const token = first.body.nextPageToken;
    assert.ok(token);
    const again = await list({ pageSize: 5, kinds: ["StateChange"], pageToken: token });
    assert.equal(again.status, 200, "another page size is the same request");
    for (const other of [{}, { kinds: ["FlappingStart"] }, { oldestFirst: true, kinds: ["StateChange"] }]) {
      const r = await list({ ...other, pageToken: token });
      assert.equal(r.body.code, "invalid_argument", JSON.stringify(other));
      assert.match(r.body.message, /other filters/);
    }
  });

  it("refuses bad input with its Connect code", async () => {
    const cases: { body: Record<string, unknown>; code: string; message: RegExp }[] = [
      {
        body: { since: new Date(T0 + MINUTE).toISOString(), until: new Date(T0).toISOString() },
        code: "invalid_argument",
        message: /since is after until/,
      },
      { body: { kinds: ["StateChange", "Nope"] }, code: "invalid_argument", message: /unknown kind "Nope"/ },
      { body: { pageToken: "12" }, code: "invalid_argument", message: /malformed/ },
      { body: { pageToken: "!!" }, code: "invalid_argument", message: /malformed/ },
      {
        body: { pageToken: Buffer.from("h1.AAAAAAAAAAAAAAAA.-5").toString("base64url") },
        code: "invalid_argument",
        message: /malformed/,
      },
      { body: { host: "nope" }, code: "not_found", message: /host "nope" is not configured/ },
      { body: { host: "host-00000", service: "nope" }, code: "not_found", message: /not configured/ },
      { body: { service: "svc-000" }, code: "invalid_argument", message: /without host/ },
      { body: { selector: "env==" }, code: "invalid_argument", message: /selector/ },
      { body: { pageSize: -1 }, code: "invalid_argument", message: /page_size/ },
    ];
    for (const c of cases) {
      const r = await list(c.body);
      assert.equal(r.body.code, c.code, JSON.stringify(c.body));
      assert.match(r.body.message, c.message);
    }
  });

  it("over gRPC: pages either way, refusals with their codes", async () => {
    const grpc = createClient(QueryService, createGrpcTransport({ baseUrl: srv.url }));
    const json = await walk({ pageSize: 1000, kinds: ["StateChange"], oldestFirst: true });
    const seqs: bigint[] = [];
    let pageToken = "";
    do {
      const r = await grpc.listHistory({ kinds: ["StateChange"], oldestFirst: true, pageSize: 3, pageToken });
      seqs.push(...r.entries.map((e) => e.sequence));
      pageToken = r.nextPageToken;
    } while (pageToken !== "");
    assert.deepEqual(
      seqs.map(String),
      json.map((e) => e.sequence),
    );
    await assert.rejects(
      grpc.listHistory({ since: timestampFromMs(T0 + 1), until: timestampFromMs(T0) }),
      (e) => {
        assert.equal(ConnectError.from(e).code, Code.InvalidArgument);
        return true;
      },
    );
    await assert.rejects(grpc.listHistory({ host: "nope" }), (e) => {
      assert.equal(ConnectError.from(e).code, Code.NotFound);
      return true;
    });
  });
});

describe("ListHistory beyond the ring", () => {
  it("the ring's newest entries, then the log's: the same pages as the log alone", async () => {
    // A ring of 4 entries: the plain request starts in memory and goes on in the log.
    const dataDir = mkdtempSync(join(tmpdir(), "lookout-api-ring-"));
    const small = await serveCore(
      await Core.open({ dataDir, config, clock: new FakeClock(T0), writer: { historyCapacity: 4 } }),
    );
    try {
      for (let m = 0; m < 8; m++) {
        const r = await connectJson(small.url, "/svc.v1.CommandService/ProcessCheckResults", {
          results: [
            { host: "host-00000", service: "svc-000", exitStatus: m % 2 === 0 ? 2 : 0, output: `m${m}` },
            { host: "host-00001", exitStatus: m % 4 === 0 ? 2 : 0, output: `h${m}` },
          ],
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        await small.core.flush();
      }
      assert.equal(small.core.view.projection.history().size, 4);
      const walkOn = async (body: Record<string, unknown>) => {
        const out: JsonBody[] = [];
        let pageToken = "";
        do {
          const r = await connectJson(small.url, `${Q}ListHistory`, { ...body, pageToken });
          assert.equal(r.status, 200, JSON.stringify(r.body));
          out.push(...(r.body.entries ?? []));
          pageToken = r.body.nextPageToken ?? "";
        } while (pageToken !== "");
        return out;
      };
      const logged = await walkOn({ pageSize: 1000, kinds: [...HISTORY_KINDS] });
      assert.ok(logged.length > 12, `${logged.length} entries`);
      for (const pageSize of [1, 3, 4, 5, 1000]) {
        assert.deepEqual(await walkOn({ pageSize }), logged, `pages of ${pageSize}`);
        for (const [host, service] of [
          ["host-00000", "svc-000"],
          ["host-00001", undefined],
        ] as const) {
          assert.deepEqual(
            await walkOn({ host, ...(service === undefined ? {} : { service }), pageSize }),
            logged.filter((e) => e.host === host && e.service === service),
            `${host} ${service ?? ""}, pages of ${pageSize}`,
          );
        }
      }
    } finally {
      await small.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("ListPerfdata", () => {
  it("one object's labels as series over Connect JSON and gRPC", async () => {
    const r = await connectJson(srv.url, `${Q}ListPerfdata`, { host: "host-00000", service: "svc-000" });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.times.length, 10);
    assert.equal(Date.parse(r.body.times[0]), T0);
    assert.deepEqual(r.body.series, [
      { label: "t", uom: "s", values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], warn: "5", crit: "8", min: 0 },
    ]);
    const grpc = createClient(QueryService, createGrpcTransport({ baseUrl: srv.url }));
    const g = await grpc.listPerfdata({ host: "host-00000", service: "svc-000", maxPoints: 4 });
    assert.equal(g.downsampled, true);
    assert.ok(g.times.length <= 4);
    assert.deepEqual(g.series[0]?.values, [0, 4, 5, 9]);
    // A result without the label: NaN, as proto3 JSON writes it.
    const none = await connectJson(srv.url, `${Q}ListPerfdata`, { host: "host-00000", service: "svc-001" });
    assert.equal(none.status, 200);
    assert.deepEqual([none.body.times ?? [], none.body.series ?? []], [[], []]);
  });

  it("refuses bad input with its Connect code", async () => {
    const cases: { body: Record<string, unknown>; code: string }[] = [
      { body: { host: "nope" }, code: "not_found" },
      { body: { host: "host-00000", service: "nope" }, code: "not_found" },
      { body: {}, code: "invalid_argument" },
      { body: { host: "host-00000", maxPoints: -1 }, code: "invalid_argument" },
      {
        body: {
          host: "host-00000",
          since: new Date(T0 + 1).toISOString(),
          until: new Date(T0).toISOString(),
        },
        code: "invalid_argument",
      },
    ];
    for (const c of cases) {
      const r = await connectJson(srv.url, `${Q}ListPerfdata`, c.body);
      assert.equal(r.body.code, c.code, JSON.stringify(c.body));
    }
  });
});
