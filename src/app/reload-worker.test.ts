import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { silentLogger } from "../model/logger.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";
import { App } from "./app.js";

// A reload evaluates the document on a worker thread. These tests SIGHUP the real binary with a
// document large enough that evaluating it takes seconds, and keep asking the server for /metrics
// meanwhile: a reload on the main thread would leave one request waiting for the whole load. The
// wait a client sees grows when the machine is busy (the whole suite runs beside it), so besides
// a bound relative to the reload's length, the server's own figure decides: the most CPU time its
// main thread spent in one turn of the event loop, which a busy machine does not inflate.

const LIST_STATUS = "/svc.v1.QueryService/ListStatus";

/**
 * Hosts in the reloaded documents: large enough that a reload takes well over 500 ms even on the
 * engine's fast export path (5,500 objects took 455 ms on Node 24), or the test proves nothing.
 */
const RELOAD_HOSTS = 5_000;
const LAST = RELOAD_HOSTS - 1;

/** `hosts` hosts with 10 passive services each (nothing to probe: tests contact loopback only). */
function fleet(hosts: number, opts: { prefix: string; brokenLast?: boolean }): string {
  const out = ["hosts: {"];
  for (let h = 0; h < hosts; h++) {
    const broken = opts.brokenLast === true && h === hosts - 1;
    out.push(
      `\t${opts.prefix}${h}: {`,
      `\t\taddress: "127.0.0.1"`,
      `\t\tlabels: {tier: "t${h % 4}"}`,
      `\t\tcheck: {type: "${broken ? "pasive" : "passive"}", freshness_threshold: "1h"}`,
      "\t\tservices: {",
    );
    for (let s = 0; s < 10; s++) {
      out.push(`\t\t\tsvc${s}: check: {type: "passive", freshness_threshold: "${10 + s}m", max_attempts: 2}`);
    }
    out.push("\t\t}", "\t}");
  }
  out.push("}", "");
  return out.join("\n");
}

/**
 * The most CPU time the server's main thread may spend in one turn of its event loop during a
 * reload (its own figure, `longestTaskCpuMs` in the reload's log line). A reload costs it tens of
 * milliseconds per turn (docs/configuration.md, "Reloads"); evaluating the document there instead
 * costs the whole evaluation, well over a second. CPU time, unlike the wait a client sees, does not
 * grow when other processes keep the machine busy.
 */
const MAX_TASK_CPU_MS = 200;

interface Probe {
  /** Requests answered while the reload ran, and the longest wait for one. */
  readonly answered: number;
  readonly maxMs: number;
  /** From SIGHUP to the log line that ends the reload. */
  readonly reloadMs: number;
  /** The server's longest event-loop turn during the reload, wall and CPU (its log line). */
  readonly longestTaskMs: number;
  readonly longestTaskCpuMs: number | undefined;
  /** The largest nodejs_eventloop_lag_max_seconds the scrapes reported, in ms. */
  readonly lagMaxMs: number;
}

/** Sends SIGHUP and asks for /metrics back to back until the log matches `done`. */
async function reloadWhileAsking(srv: ServerProcess, done: RegExp): Promise<Probe> {
  const logBefore = srv.stderr().length;
  const ended = () => done.test(srv.stderr().slice(logBefore));
  const start = performance.now();
  srv.child.kill("SIGHUP");
  let answered = 0;
  let maxMs = 0;
  let lagMaxMs = 0;
  const deadline = start + 120_000;
  while (!ended()) {
    if (performance.now() > deadline) assert.fail(`reload did not end:\n${srv.stderr().slice(logBefore)}`);
    const t = performance.now();
    const r = await fetch(`${srv.url}/metrics`);
    assert.equal(r.status, 200);
    const text = await r.text();
    const ms = performance.now() - t;
    // The histogram behind it restarts at every scrape: each one covers the time since the last.
    const lag = Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1]);
    if (Number.isFinite(lag)) lagMaxMs = Math.max(lagMaxMs, Math.round(lag * 1000));
    if (ended()) break; // answered after the reload: not a request that ran alongside it
    answered++;
    maxMs = Math.max(maxMs, ms);
    await new Promise((res) => setTimeout(res, 10));
  }
  const reloadMs = performance.now() - start;
  const line = /"msg":"config reload[^\n]*"longestTaskMs":(\d+)(?:,"longestTaskCpuMs":(\d+))?/.exec(
    srv.stderr().slice(logBefore),
  );
  assert.ok(line !== null, `no longestTaskMs in the reload's log line:\n${srv.stderr().slice(logBefore)}`);
  return {
    answered,
    maxMs: Math.round(maxMs),
    reloadMs: Math.round(reloadMs),
    longestTaskMs: Number(line[1]),
    longestTaskCpuMs: line[2] === undefined ? undefined : Number(line[2]),
    lagMaxMs,
  };
}

interface Status {
  readonly host: string;
  readonly service?: string;
  readonly maxAttempts?: number;
}

/** ListStatus for one host and its services; none when the host is not configured. */
async function statusesOf(srv: ServerProcess, host: string): Promise<Status[]> {
  const r = await fetch(srv.url + LIST_STATUS, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ host }),
  });
  const body = await r.text();
  if (r.status === 404) return [];
  assert.equal(r.status, 200, body);
  return (JSON.parse(body) as { statuses?: Status[] }).statuses ?? [];
}

function assertResponsive(p: Probe): void {
  const what = JSON.stringify(p);
  assert.ok(p.reloadMs > 500, `the document loads too fast to show anything: ${what}`);
  assert.ok(p.answered >= 5, `the server answered too few requests during the reload: ${what}`);
  assert.ok(p.maxMs < p.reloadMs / 3, `a request waited for the reload: ${what}`);
  assert.ok(p.longestTaskCpuMs !== undefined, `the server cannot read its thread's CPU time: ${what}`);
  assert.ok(
    p.longestTaskCpuMs < MAX_TASK_CPU_MS,
    `the main thread worked ${p.longestTaskCpuMs} ms in one turn of its event loop: ${what}`,
  );
}

describe("a reload of a large document runs beside the server", () => {
  let dir: string;
  let cfg: string;
  let srv: ServerProcess;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "lookout-reload-"));
    cfg = join(dir, "lookout.cue");
    await writeFile(cfg, fleet(500, { prefix: "old" }));
    srv = await startServer(["-config", cfg, "-data-dir", join(dir, "data")], { timeoutMs: 120_000 });
  });
  after(async () => {
    await srv.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test("startup evaluates on a worker too: the server's heap holds the Config, not the evaluation", async () => {
    // 5,500 objects: evaluating them on the main thread leaves ~130 MB there (the engine's
    // shared-leaf cache keeps the document's evaluation alive); the Config is ~3 MB.
    const metrics = await (await fetch(`${srv.url}/metrics`)).text();
    const used = Number(/^nodejs_heap_size_used_bytes (\d+)$/m.exec(metrics)?.[1]);
    assert.ok(used > 0, "no nodejs_heap_size_used_bytes in /metrics");
    assert.ok(used < 64 * 2 ** 20, `main-thread heap after startup: ${(used / 2 ** 20).toFixed(0)} MB`);
    assert.equal((await statusesOf(srv, "old499")).length, 11);
  });

  test("a valid document: the server keeps answering, then serves the new config", async (t) => {
    await writeFile(cfg, fleet(RELOAD_HOSTS, { prefix: "new" }));
    const p = await reloadWhileAsking(srv, /"msg":"config reload(ed"| rejected| failed)/);
    assert.match(srv.stderr(), new RegExp(`"msg":"config reloaded".*"hosts":${RELOAD_HOSTS},"loadMs":\\d+`));
    assertResponsive(p);
    t.diagnostic(JSON.stringify(p));
    const last = await statusesOf(srv, `new${LAST}`);
    assert.equal(last.length, 11);
    assert.equal(last.find((x) => x.service === "svc9")?.maxAttempts, 2);
    assert.deepEqual(await statusesOf(srv, "old0"), [], "the old hosts are gone");
  });

  test("a rejected document: the server keeps answering and the running config stays", async (t) => {
    const text = fleet(RELOAD_HOSTS, { prefix: "bad", brokenLast: true });
    const line = text.split("\n").findIndex((l) => l.includes('"pasive"')) + 1;
    await writeFile(cfg, text);
    const p = await reloadWhileAsking(srv, /"msg":"config reload(ed"| rejected| failed)/);
    assertResponsive(p);
    t.diagnostic(JSON.stringify(p));
    const log = srv.stderr();
    assert.match(log, /"msg":"config reload rejected.*"problems":1,"loadMs":\d+/);
    const rejected = new RegExp(
      `"msg":"config rejected".*"line":${line},"column":\\d+,"problem":"[^"]*"pasive`,
    );
    assert.match(log, rejected);
    const metrics = await (await fetch(`${srv.url}/metrics`)).text();
    assert.match(metrics, /^lookout_config_reloads_total\{result="rejected"\} 1$/m);
    assert.equal((await statusesOf(srv, `new${LAST}`)).length, 11, "the running config keeps serving");
    assert.deepEqual(await statusesOf(srv, "bad0"), []);
  });
});

describe("stopping during a reload", () => {
  test("ends the reload's worker: the reload fails at once and nothing is applied", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lookout-stop-"));
    try {
      const cfg = join(dir, "lookout.cue");
      await writeFile(cfg, fleet(1, { prefix: "old" }));
      const app = await App.start(
        {
          listen: "127.0.0.1:0",
          config: cfg,
          authConfig: "",
          readOnly: false,
          apiToken: "",
          sessionSecret: "",
          configProfile: "",
          commandFile: "",
          dataDir: join(dir, "data"),
          eventRetentionMs: 0,
          logLevel: "error",
        },
        { logger: silentLogger, version: "test" },
      );
      // Large enough that its evaluation alone takes far longer than stopping.
      await writeFile(cfg, fleet(2000, { prefix: "new" }));
      const order: string[] = [];
      const reload = app.reload().then((r) => {
        order.push("reload ended");
        return r;
      });
      await new Promise((res) => setTimeout(res, 200));
      await app.stop();
      order.push("stopped");
      assert.deepEqual(await reload, { ok: false, kind: "error", diagnostics: [] });
      assert.deepEqual(order, ["reload ended", "stopped"], "the reload outlived stop()");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
