import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Core } from "../core/core.js";
import { fleetConfig } from "../core/fleet-config.js";
import { replayProjection } from "../store/replay.js";
import { FakeClock } from "../testing/fake-clock.js";
import { type CoreTestServer, connectJson, serveCore } from "./core-test-server.js";
import { QueryService } from "./gen/svc/v1/query_service_pb.js";

const CMD = "/svc.v1.CommandService/";
const QRY = "/svc.v1.QueryService/";
const T0 = Date.UTC(2026, 0, 1);
const H = 3_600_000;
// host-00000 and host-00002 are env=prod, host-00001 env=dev; two services each, passive.
const config = fleetConfig({ hosts: 3, servicesPerHost: 2, maxAttempts: 1 });
const iso = (ms: number): string => new Date(ms).toISOString();

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function open(dir: string, clock: FakeClock): Promise<CoreTestServer> {
  return serveCore(await Core.open({ dataDir: dir, config, clock }));
}

describe("downtimes and comments over the API", () => {
  it("lists downtimes (filters, state, flexible, pages), refuses at once, and keeps them across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lookout-dt-"));
    dirs.push(dir);
    const clock = new FakeClock(T0);
    let srv = await open(dir, clock);
    try {
      const schedule = (body: Record<string, unknown>) =>
        connectJson(srv.url, `${CMD}ScheduleDowntime`, { author: "ops", comment: "patching", ...body });
      const prod = await schedule({ target: { selector: "env=prod" }, start: iso(T0), end: iso(T0 + H) });
      assert.equal(prod.status, 200, JSON.stringify(prod.body));
      const later = await schedule({
        target: { object: { host: "host-00001", service: "svc-000" } },
        start: iso(T0 + 2 * H),
        end: iso(T0 + 3 * H),
      });
      assert.equal(later.status, 200, JSON.stringify(later.body));
      const flex = await schedule({
        target: { object: { host: "host-00001", service: "svc-001" } },
        start: iso(T0),
        end: iso(T0 + 4 * H),
        flexible: true,
        duration: "1800s",
      });
      assert.equal(flex.status, 200, JSON.stringify(flex.body));

      // Refused at once: what the projection or the request already says cannot apply.
      const refusals: [string, Record<string, unknown>, string, RegExp][] = [
        [
          "ScheduleDowntime",
          { target: { selector: "env=nowhere" }, start: iso(T0), end: iso(T0 + H) },
          "not_found",
          /matches no configured object/,
        ],
        [
          "ScheduleDowntime",
          { target: { object: { host: "host-00000" } }, start: iso(T0), end: iso(T0 + H), flexible: true },
          "invalid_argument",
          /needs a duration/,
        ],
        [
          "ScheduleDowntime",
          {
            target: { object: { host: "host-00000" } },
            start: iso(T0),
            end: iso(T0 + H),
            flexible: true,
            duration: "0s",
          },
          "invalid_argument",
          /must be positive/,
        ],
        ["DeleteDowntime", { id: "dt-nope" }, "not_found", /does not exist/],
      ];
      for (const [rpc, body, code, message] of refusals) {
        const r = await connectJson(srv.url, CMD + rpc, body);
        assert.equal(r.body.code, code, `${rpc} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
        assert.match(r.body.message, message);
      }
      await srv.core.flush();

      const list = async (body: Record<string, unknown>) => {
        const r = await connectJson(srv.url, `${QRY}ListDowntimes`, body);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body;
      };
      const all = await list({});
      assert.equal(all.totalSize, 3);
      const byId = new Map(all.downtimes.map((d: { id: string }) => [d.id, d]));
      const p = byId.get(prod.body.id) as Record<string, unknown>;
      assert.equal((p.objects as unknown[]).length, 6, "one id for the selector's six objects");
      assert.equal(p.state, "DOWNTIME_STATE_ACTIVE");
      assert.equal(p.startedAt, "2026-01-01T00:00:00Z");
      assert.equal(p.author, "ops");
      assert.equal(p.created, "2026-01-01T00:00:00Z");
      const f = byId.get(flex.body.id) as Record<string, unknown>;
      assert.equal(f.flexible, true);
      assert.equal(f.duration, "1800s");
      assert.equal(f.state, "DOWNTIME_STATE_FUTURE", "a flexible downtime waits for a problem");
      assert.deepEqual(f.objects, [{ host: "host-00001", service: "svc-001" }]);

      assert.deepEqual(
        (await list({ state: "DOWNTIME_STATE_ACTIVE" })).downtimes.map((d: { id: string }) => d.id),
        [prod.body.id],
      );
      assert.equal((await list({ state: "DOWNTIME_STATE_FUTURE" })).totalSize, 2);
      assert.equal((await list({ host: "host-00001" })).totalSize, 2);
      assert.equal((await list({ host: "host-00001", service: "svc-000" })).downtimes[0].id, later.body.id);
      assert.equal((await list({ selector: "env=dev" })).totalSize, 2);
      assert.equal((await list({ selector: "env=prod" })).downtimes[0].id, prod.body.id);
      const nf = await connectJson(srv.url, `${QRY}ListDowntimes`, { host: "nope" });
      assert.equal(nf.body.code, "not_found");

      // Pages: by start, then id.
      const first = await list({ pageSize: 2 });
      assert.equal(first.downtimes.length, 2);
      assert.ok(first.nextPageToken);
      const second = await list({ pageSize: 2, pageToken: first.nextPageToken });
      assert.equal(second.downtimes.length, 1);
      assert.equal(second.downtimes[0].id, later.body.id, "the one that starts last comes last");
      assert.equal(second.nextPageToken ?? "", "");

      // A problem starts the flexible one; over gRPC too.
      const res = await connectJson(srv.url, `${CMD}ProcessCheckResult`, {
        host: "host-00001",
        service: "svc-001",
        exitStatus: 2,
        output: "CRITICAL",
      });
      assert.equal(res.status, 200);
      await srv.core.flush();
      const client = createClient(QueryService, createGrpcTransport({ baseUrl: srv.url }));
      const started = await client.listDowntimes({ host: "host-00001", service: "svc-001" });
      assert.equal(started.downtimes[0]?.state, 2);
      assert.equal(started.downtimes[0]?.endsAt?.seconds, BigInt((T0 + H / 2) / 1000));
      const before = srv.core.view.projection.snapshot();
      const listed = await list({});

      await srv.close();
      srv = await open(dir, clock);
      assert.deepEqual(await list({}), listed, "a restart keeps every downtime as it was");
      assert.deepEqual(replayProjection(dir), before, "a replay of the log alone gives the same");

      const del = await connectJson(srv.url, `${CMD}DeleteDowntime`, { id: prod.body.id });
      assert.equal(del.status, 200, JSON.stringify(del.body));
      await srv.core.flush();
      assert.equal((await list({})).totalSize, 2);
    } finally {
      await srv.close();
    }
  });

  it("adds, lists and deletes comments; an acknowledgement's is listed and goes with it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lookout-cm-"));
    dirs.push(dir);
    const clock = new FakeClock(T0);
    let srv = await open(dir, clock);
    try {
      const add = (object: Record<string, unknown>, comment: string) =>
        connectJson(srv.url, `${CMD}AddComment`, { object, author: "erin", comment });
      const a = await add({ host: "host-00000", service: "svc-000" }, "new load balancer");
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.match(a.body.id, /^c-/);
      clock.advance(1000);
      const b = await add({ host: "host-00000" }, "rack moved");
      assert.equal(b.status, 200, JSON.stringify(b.body));
      clock.advance(1000);
      const refusals: [string, Record<string, unknown>, string][] = [
        ["AddComment", { object: { host: "nope" }, comment: "x" }, "not_found"],
        ["AddComment", { object: { host: "host-00000" }, comment: " " }, "invalid_argument"],
        ["AddComment", { comment: "x" }, "invalid_argument"],
        ["DeleteComment", { id: "c-nope" }, "not_found"],
        ["DeleteComment", { id: "" }, "invalid_argument"],
      ];
      for (const [rpc, body, code] of refusals) {
        const r = await connectJson(srv.url, CMD + rpc, body);
        assert.equal(r.body.code, code, `${rpc} ${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
      }

      // An acknowledgement's comment is among them.
      await connectJson(srv.url, `${CMD}ProcessCheckResult`, {
        host: "host-00000",
        service: "svc-001",
        exitStatus: 2,
        output: "CRITICAL",
      });
      await srv.core.flush();
      const ack = await connectJson(srv.url, `${CMD}AcknowledgeProblem`, {
        target: { object: { host: "host-00000", service: "svc-001" } },
        author: "sam",
        comment: "on it",
      });
      assert.equal(ack.status, 200, JSON.stringify(ack.body));
      await srv.core.flush();

      const list = async (body: Record<string, unknown>) => {
        const r = await connectJson(srv.url, `${QRY}ListComments`, body);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body;
      };
      const all = await list({ host: "host-00000" });
      assert.deepEqual(
        all.comments.map((c: { text: string; kind: string }) => [c.text, c.kind]),
        [
          ["on it", "COMMENT_KIND_ACKNOWLEDGEMENT"],
          ["rack moved", "COMMENT_KIND_USER"],
          ["new load balancer", "COMMENT_KIND_USER"],
        ],
        "newest first",
      );
      assert.equal((await list({ host: "host-00000", service: "svc-000" })).totalSize, 1);
      assert.equal((await list({ host: "host-00001" })).totalSize ?? 0, 0);
      const page = await list({ pageSize: 1 });
      const rest = await list({ pageSize: 5, pageToken: page.nextPageToken });
      assert.equal(rest.comments.length, 2);
      const ackId = all.comments[0].id;
      const refused = await connectJson(srv.url, `${CMD}DeleteComment`, { id: ackId });
      assert.equal(refused.body.code, "failed_precondition", JSON.stringify(refused.body));

      const listed = await list({});
      const before = srv.core.view.projection.snapshot();
      await srv.close();
      srv = await open(dir, clock);
      assert.deepEqual(await list({}), listed, "a restart keeps every comment");
      assert.deepEqual(replayProjection(dir), before);

      const del = await connectJson(srv.url, `${CMD}DeleteComment`, { id: a.body.id });
      assert.equal(del.status, 200, JSON.stringify(del.body));
      await connectJson(srv.url, `${CMD}RemoveAcknowledgement`, {
        target: { object: { host: "host-00000", service: "svc-001" } },
      });
      await srv.core.flush();
      assert.deepEqual(
        (await list({})).comments.map((c: { text: string }) => c.text),
        ["rack moved"],
        "the deleted comment and the acknowledgement's are gone",
      );
      const history = await connectJson(srv.url, `${QRY}ListHistory`, {
        host: "host-00000",
        service: "svc-000",
      });
      assert.ok(
        history.body.entries.some((e: { kind: string }) => e.kind === "CommentDeleted"),
        JSON.stringify(history.body),
      );
    } finally {
      await srv.close();
    }
  });
});
