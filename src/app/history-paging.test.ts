/**
 * ListHistory paged through the event log in the real binary while results keep arriving: a time
 * range newest first over Connect JSON and oldest first over gRPC, an open range oldest first and
 * the plain feed newest first; each walk gives every event exactly once, new events never shift
 * a page, and what it gave is what the log holds once the load has stopped. ListPerfdata answers
 * the same results' perfdata.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { connectJson } from "../api/core-test-server.js";
import { QueryService } from "../api/gen/svc/v1/query_service_pb.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";

const SERVICES = 12;
const DOCUMENT = `
hosts: web: {
	address: "127.0.0.1"
	check: {type: "passive", freshness_threshold: "24h", max_attempts: 1}
	services: {
${Array.from({ length: SERVICES }, (_, i) => `\t\ts${i}: check: {type: "passive", freshness_threshold: "24h", max_attempts: 1}`).join("\n")}
	}
}
`;

interface Entry {
  sequence: string;
  kind: string;
  host: string;
  service?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("ListHistory paged through the log while results arrive, in the real binary", () => {
  let dir: string;
  let srv: ServerProcess;
  let rounds = 0;
  let loading = true;
  let load: Promise<void>;
  let since: number;
  let until: number;

  const call = async (method: string, body: unknown) => {
    const r = await connectJson(srv.url, `/svc.v1.QueryService/${method}`, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  /** Every entry of a request over Connect JSON, through its pages. */
  const walkJson = async (body: Record<string, unknown>): Promise<Entry[]> => {
    const out: Entry[] = [];
    let pageToken = "";
    do {
      const page = await call("ListHistory", { ...body, pageToken });
      out.push(...((page.entries ?? []) as Entry[]));
      pageToken = page.nextPageToken ?? "";
    } while (pageToken !== "");
    return out;
  };
  /** The same over gRPC, the entries as JSON would show them (sequence as a string). */
  const walkGrpc = async (
    req: Parameters<ReturnType<typeof grpcClient>["listHistory"]>[0],
  ): Promise<Entry[]> => {
    const grpc = grpcClient();
    const out: Entry[] = [];
    let pageToken = "";
    do {
      const page = await grpc.listHistory({ ...req, pageToken });
      out.push(
        ...page.entries.map((e) => ({
          sequence: String(e.sequence),
          kind: e.kind,
          host: e.host,
          ...(e.service === undefined ? {} : { service: e.service }),
        })),
      );
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    return out;
  };
  const grpcClient = () => createClient(QueryService, createGrpcTransport({ baseUrl: srv.url }));
  const brief = (es: Entry[]) => es.map((e) => `${e.sequence}:${e.kind}:${e.service ?? ""}`);
  const once = (es: Entry[], what: string) =>
    assert.equal(new Set(es.map((e) => e.sequence)).size, es.length, `${what}: an entry given twice`);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "lookout-history-paging-"));
    const cfg = join(dir, "lookout.cue");
    await writeFile(cfg, DOCUMENT);
    srv = await startServer(["-config", cfg, "-data-dir", join(dir, "data"), "-event-retention", "168h"]);
    // Every round turns every service over (max_attempts 1: each result is a state change).
    load = (async () => {
      while (loading) {
        const r = await connectJson(srv.url, "/svc.v1.CommandService/ProcessCheckResults", {
          results: Array.from({ length: SERVICES }, (_, i) => ({
            host: "web",
            service: `s${i}`,
            exitStatus: rounds % 2 === 0 ? 2 : 0,
            output: `round ${rounds} | v=${rounds};5;8`,
          })),
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        rounds++;
        await sleep(10);
      }
    })();
    const waitRounds = async (n: number) => {
      for (const end = Date.now() + 60_000; rounds < n; await sleep(20))
        if (Date.now() > end) assert.fail(`only ${rounds} rounds`);
    };
    await waitRounds(3);
    since = Date.now();
    await waitRounds(13);
    until = Date.now();
    await waitRounds(16);
  });
  after(async () => {
    loading = false;
    await load?.catch(() => {});
    if (srv !== undefined) {
      const log = srv.stderr();
      const code = await srv.stop();
      if (code !== 0) process.stderr.write(log);
    }
    await rm(dir, { recursive: true, force: true });
  });

  /** A failing test prints the server's log (multi-process tests keep every process's log). */
  const logged = (f: () => Promise<void>) => async () => {
    try {
      await f();
    } catch (e) {
      process.stderr.write(`server log:\n${srv.stderr()}\n`);
      throw e;
    }
  };

  it(
    "every event exactly once, newest and oldest first, over Connect JSON and gRPC",
    logged(async () => {
      const range = { since: new Date(since).toISOString(), until: new Date(until).toISOString() };
      // While results keep arriving.
      const down = await walkJson({ ...range, pageSize: 7 });
      const up = await walkGrpc({
        since: timestampFromMs(since),
        until: timestampFromMs(until),
        oldestFirst: true,
        pageSize: 5,
      });
      const open = await walkJson({
        since: range.since,
        oldestFirst: true,
        kinds: ["StateChange"],
        pageSize: 9,
      });
      const plain = await walkGrpc({ pageSize: 50 });
      const roundsDuring = rounds;
      loading = false;
      await load;
      assert.ok(rounds > 16 && roundsDuring > 16, `${rounds} rounds`);
      for (const [name, es] of [
        ["down", down],
        ["up", up],
        ["open", open],
        ["plain", plain],
      ] as const)
        once(es, name);

      // What the log holds once the load has stopped, in one page each.
      const truth = await walkJson({ ...range, pageSize: 1000 });
      assert.ok(truth.length >= 10 * SERVICES, `${truth.length} entries in the range`);
      assert.deepEqual(brief(down), brief(truth));
      assert.deepEqual(brief(up), brief([...truth].reverse()));
      const openTruth = await walkJson({
        since: range.since,
        oldestFirst: true,
        kinds: ["StateChange"],
        pageSize: 1000,
      });
      assert.ok(open.length > 0 && open.length <= openTruth.length);
      assert.deepEqual(brief(open), brief(openTruth.slice(0, open.length)));
      const feed = await walkJson({ pageSize: 1000 });
      const top = feed.findIndex((e) => e.sequence === plain[0]?.sequence);
      assert.ok(top >= 0);
      assert.deepEqual(brief(plain), brief(feed.slice(top)));
    }),
  );

  it(
    "ListPerfdata: a service's results as a series, reduced on request",
    logged(async () => {
      const full = await call("ListPerfdata", { host: "web", service: "s0" });
      const values = (full.series?.[0]?.values ?? []) as number[];
      assert.equal(full.series?.[0]?.label, "v");
      assert.equal(values.length, full.times.length);
      assert.deepEqual(
        values,
        Array.from({ length: values.length }, (_, i) => i),
      );
      const grpc = grpcClient();
      const reduced = await grpc.listPerfdata({ host: "web", service: "s0", maxPoints: 4 });
      assert.equal(reduced.downsampled, values.length > 4);
      assert.ok(reduced.times.length <= 4);
      assert.equal(Math.max(...(reduced.series[0]?.values ?? [])), values.length - 1);
    }),
  );
});
