/**
 * ListStatus `at` and `lookout status --at` against the real binary: the status recorded at a
 * moment, then changed, is answered again for that moment over Connect JSON, over gRPC (the fast
 * path) and by the CLI; a moment in the future, before the log, or malformed is refused with its
 * Connect code, and the CLI says so and exits 1.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { connectJson } from "../api/core-test-server.js";
import { QueryService } from "../api/gen/svc/v1/query_service_pb.js";
import { State } from "../api/gen/svc/v1/types_pb.js";
import { MAIN_JS, type ServerProcess, startServer } from "../testing/server-process.js";

const run = promisify(execFile);

const DOCUMENT = `
hosts: web: {
	address: "127.0.0.1"
	check: {type: "passive", freshness_threshold: "24h", max_attempts: 1}
	services: {
		a: check: {type: "passive", freshness_threshold: "24h", max_attempts: 1}
		b: check: {type: "passive", freshness_threshold: "24h", max_attempts: 1}
	}
}
`;

interface Status {
  host: string;
  service?: string;
  state: string;
  output?: string;
}

describe("ListStatus at, and lookout status --at, in the real binary", () => {
  let dir: string;
  let srv: ServerProcess | undefined;
  let opened: number;
  /** A moment after the first results, and what ListStatus said then. */
  let t1: number;
  let then: Status[];

  const listStatus = async (body: unknown) => {
    const r = await connectJson((srv as ServerProcess).url, "/svc.v1.QueryService/ListStatus", body);
    return r as { status: number; body: { statuses?: Status[]; code?: string; message?: string } };
  };
  const results = async (a: number, b: number, tag: string) => {
    const r = await connectJson((srv as ServerProcess).url, "/svc.v1.CommandService/ProcessCheckResults", {
      results: [
        { host: "web", service: "a", exitStatus: a, output: `a ${tag}` },
        { host: "web", service: "b", exitStatus: b, output: `b ${tag}` },
      ],
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // Visible once both outputs show.
    for (const end = Date.now() + 30_000; ; ) {
      const s = (await listStatus({ host: "web" })).body.statuses ?? [];
      if (s.filter((x) => x.output?.endsWith(tag)).length === 2) return s;
      if (Date.now() > end) assert.fail(`results ${tag} not visible: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const cli = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
    try {
      const r = await run(process.execPath, [MAIN_JS, "status", ...args], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
      });
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (e) {
      const x = e as { code: number; stdout: string; stderr: string };
      return { code: x.code, stdout: x.stdout, stderr: x.stderr };
    }
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "lookout-status-at-"));
    const cfg = join(dir, "lookout.cue");
    await writeFile(cfg, DOCUMENT);
    opened = Date.now();
    srv = await startServer(["-config", cfg, "-data-dir", join(dir, "data")]);
    await results(2, 0, "one");
    await new Promise((r) => setTimeout(r, 20));
    t1 = Date.now();
    then = (await listStatus({ host: "web" })).body.statuses ?? [];
    await new Promise((r) => setTimeout(r, 20));
    await results(0, 1, "two");
  });
  after(async () => {
    if (srv !== undefined) {
      const log = srv.stderr();
      const code = await srv.stop();
      if (code !== 0) process.stderr.write(log);
    }
    await rm(dir, { recursive: true, force: true });
  });

  it("answers the moment as it stood, not as it is, over Connect JSON and gRPC", async () => {
    assert.deepEqual(
      then.map((s) => [s.service ?? "", s.state]),
      [
        ["", "STATE_PENDING"],
        ["a", "STATE_CRITICAL"],
        ["b", "STATE_OK"],
      ],
    );
    const past = await listStatus({ host: "web", at: new Date(t1).toISOString() });
    assert.equal(past.status, 200, JSON.stringify(past.body));
    assert.deepEqual(past.body.statuses, then);
    const now = await listStatus({ host: "web" });
    assert.notDeepEqual(now.body.statuses, then);
    // Paged, one object at a time, as without `at`.
    const paged: Status[] = [];
    let pageToken = "";
    do {
      const p = await listStatus({ pageSize: 1, pageToken, at: new Date(t1).toISOString() });
      assert.equal(p.status, 200, JSON.stringify(p.body));
      paged.push(...(p.body.statuses ?? []));
      pageToken = (p.body as { nextPageToken?: string }).nextPageToken ?? "";
    } while (pageToken !== "");
    assert.deepEqual(paged, then);
    const grpc = createClient(QueryService, createGrpcTransport({ baseUrl: (srv as ServerProcess).url }));
    const g = await grpc.listStatus({ host: "web", service: "a", at: timestampFromMs(t1) });
    assert.deepEqual(
      g.statuses.map((s) => [s.service, s.state, s.output]),
      [["a", State.CRITICAL, "a one"]],
    );
  });

  it("refuses a moment in the future, before the log, or malformed", async () => {
    const cases = [
      { at: new Date(Date.now() + 3_600_000).toISOString(), code: "out_of_range", message: /in the future/ },
      {
        at: new Date(opened - 86_400_000).toISOString(),
        code: "out_of_range",
        message: /before the oldest time the log can answer, \d{4}-/,
      },
      { at: "yesterday", code: "invalid_argument", message: /./ },
    ];
    for (const c of cases) {
      const r = await listStatus({ host: "web", at: c.at });
      assert.equal(r.body.code, c.code, JSON.stringify(r.body));
      assert.match(r.body.message ?? "", c.message);
    }
    const grpc = createClient(QueryService, createGrpcTransport({ baseUrl: (srv as ServerProcess).url }));
    await assert.rejects(grpc.listStatus({ at: timestampFromMs(Date.now() + 3_600_000) }), (e: unknown) => {
      assert.equal(ConnectError.from(e).code, Code.OutOfRange);
      return true;
    });
  });

  it("lookout status --at prints the moment; refusals exit 1 with the server's reason", async () => {
    const url = (srv as ServerProcess).url;
    const past = await cli(["-server", url, "-host", "web", "--at", new Date(t1).toISOString()]);
    assert.equal(past.code, 0, past.stderr);
    assert.match(past.stdout, /^# as of /);
    assert.match(past.stdout, /^web\ta\tCRITICAL\tHARD\t1\/1\t-\t\S+\ta one$/m);
    assert.match(past.stdout, /^web\tb\tOK\tHARD\t1\/1\t-\t\S+\tb one$/m);
    // Now, the server's URL from the environment.
    const now = await cli(["-host", "web"], { LOOKOUT_SERVER: url });
    assert.equal(now.code, 0, now.stderr);
    assert.match(now.stdout, /^web\tb\tWARNING\t/m);
    const old = await cli(["-server", url, "-at", "-10d"]);
    assert.equal(old.code, 1);
    assert.match(old.stderr, /out_of_range: at .* is before the oldest time the log can answer/);
    const bad = await cli(["-server", url, "-at", "last tuesday"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /invalid time "last tuesday"/);
  });
});
