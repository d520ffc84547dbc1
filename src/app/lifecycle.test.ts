import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { curlJson, REPO_ROOT } from "../testing/clients.js";
import { type Peer, startTcpListener } from "../testing/peers/tcp.js";
import { runLookout, type ServerProcess, startServer } from "../testing/server-process.js";

const LIST_STATUS = "/svc.v1.QueryService/ListStatus";
const PROCESS = "/svc.v1.CommandService/ProcessCheckResult";

interface Status {
  host: string;
  service?: string;
  state: string;
  stateType?: string;
  attempt?: number;
  output?: string;
}

function configText(port: number, extra = ""): string {
  return `hosts: web: {
	address: "127.0.0.1"
	labels: env: "test"
	check: {
		type:           "tcp"
		address:        "127.0.0.1:${port}"
		check_interval: "1s"
	}
	services: backup: check: {
		type:                "passive"
		freshness_threshold: "1h"
	}
${extra}}
`;
}

async function statuses(srv: ServerProcess): Promise<Status[]> {
  const r = await curlJson(srv.url + LIST_STATUS, "{}");
  assert.equal(r.status, 200, r.body);
  return (JSON.parse(r.body) as { statuses?: Status[] }).statuses ?? [];
}

async function waitFor(srv: ServerProcess, what: string, pred: (s: Status[]) => boolean): Promise<Status[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const s = await statuses(srv);
    if (pred(s)) return s;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; last: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const find = (s: Status[], host: string, service?: string) =>
  s.find((x) => x.host === host && x.service === service);

describe("lookout with a configuration", () => {
  let dir: string;
  let peer: Peer;
  let srv: ServerProcess;
  let cfg: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "lookout-life-"));
    peer = await startTcpListener();
    cfg = join(dir, "lookout.cue");
    await writeFile(cfg, configText(peer.port));
    srv = await startServer(["-config", cfg, "-data-dir", join(dir, "data")]);
  });
  after(async () => {
    await srv.stop();
    await peer.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test("an active tcp check turns the host UP", async () => {
    const s = await waitFor(srv, "web UP", (x) => find(x, "web")?.state === "STATE_UP");
    assert.match(find(s, "web")?.output ?? "", /^TCP OK/);
    assert.equal(find(s, "web", "backup")?.state, "STATE_PENDING");
  });

  test("a passive result is enqueued, applied and read back", async () => {
    const r = await curlJson(
      srv.url + PROCESS,
      JSON.stringify({
        host: "web",
        service: "backup",
        exitStatus: 2,
        output: "BACKUP CRITICAL - no run|age=90000s;;;0",
      }),
    );
    assert.equal(r.status, 200, r.body);
    const s = await waitFor(
      srv,
      "backup CRITICAL",
      (x) => find(x, "web", "backup")?.state === "STATE_CRITICAL",
    );
    const b = find(s, "web", "backup");
    assert.equal(b?.stateType, "STATE_TYPE_SOFT");
    assert.equal(b?.attempt, 1);
    assert.equal(b?.output, "BACKUP CRITICAL - no run");
  });

  test("SIGHUP reloads: a new service appears PENDING, the old state stays", async () => {
    await writeFile(
      cfg,
      configText(peer.port, '\tservices: db: check: {type: "passive", freshness_threshold: "1h"}\n'),
    );
    srv.child.kill("SIGHUP");
    const s = await waitFor(srv, "db to appear", (x) => find(x, "web", "db") !== undefined);
    assert.equal(find(s, "web", "db")?.state, "STATE_PENDING");
    assert.equal(find(s, "web", "backup")?.state, "STATE_CRITICAL", "unchanged objects keep their state");
    assert.equal(find(s, "web")?.state, "STATE_UP");
  });

  test("a rejected document on SIGHUP changes nothing and says why", async () => {
    const good = await readFile(cfg, "utf8");
    await writeFile(cfg, good.replace('type:           "tcp"', 'type:           "tpc"'));
    srv.child.kill("SIGHUP");
    const deadline = Date.now() + 10_000;
    while (!/config reload rejected/.test(srv.stderr())) {
      if (Date.now() > deadline) assert.fail(`no rejection logged:\n${srv.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(srv.stderr(), /"msg":"config rejected".*"line":\d+,"column":\d+/);
    const metrics = await (await fetch(`${srv.url}/metrics`)).text();
    assert.match(metrics, /^lookout_config_reloads_total\{result="rejected"\} 1$/m);
    assert.match(metrics, /^lookout_config_reloads_total\{result="success"\} 1$/m);
    assert.match(metrics, /^lookout_config_last_reload_success 0$/m);
    const s = await statuses(srv);
    assert.ok(find(s, "web", "db"), "the running config keeps serving");
    await writeFile(cfg, good);
  });
});

describe("start-up and validate", () => {
  test("a rejected -config stops start-up with file:line:column diagnostics", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lookout-bad-"));
    try {
      const cfg = join(dir, "bad.cue");
      await writeFile(cfg, 'hosts: web: {\n\taddress: "x"\n\tcheck: type: "htp"\n}\n');
      const r = await runLookout(["-listen", "127.0.0.1:0", "-config", cfg, "-data-dir", join(dir, "data")]);
      assert.equal(r.code, 1);
      assert.match(
        r.stderr,
        /bad\.cue:3:\d+: .*check.*(command, dns, http, icmp, legacy, passive, snmp, tcp, tls, wasm)/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("lookout validate accepts the bundled example", async () => {
    const r = await runLookout(["validate", join(REPO_ROOT, "examples/lookout.cue")]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /1 host/);
  });

  test("lookout cue export prints JSON", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lookout-cue-"));
    try {
      await writeFile(join(dir, "a.cue"), 'a: 1 + 2\nb: "x\\(a)"\n');
      const r = await runLookout(["cue", "export", join(dir, "a.cue")]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { a: 3, b: "x3" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
