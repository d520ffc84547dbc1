import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { CheckOutcome } from "../../model/check-result.js";
import type { LegacyProbe } from "../../model/config.js";
import { checkTarget, describeCheckContract } from "../../testing/check-contract.js";
import { closedTcpPort, type Peer, startTcpListener } from "../../testing/peers/tcp.js";
import { createLegacyChecker } from "./index.js";

// Debian's monitoring-plugins-basic / -standard, run unchanged.
const PLUGINS = "/usr/lib/nagios/plugins";

describeCheckContract("legacy", async () => ({
  checker: createLegacyChecker(),
  ok: checkTarget<LegacyProbe>({ type: "legacy", path: `${PLUGINS}/check_dummy`, args: ["0", "fine"] }),
  failing: checkTarget<LegacyProbe>({
    type: "legacy",
    path: `${PLUGINS}/check_dummy`,
    args: ["2", "broken"],
  }),
  failingOutput: /^CRITICAL: broken$/,
  hanging: checkTarget<LegacyProbe>({ type: "legacy", path: "/bin/sleep", args: ["30"] }),
  async teardown() {},
}));

let dir = "";
let open: Peer;
let closed = 0;
let http: Server;
let httpPort = 0;

function script(name: string, body: string): string {
  const p = join(dir, name);
  writeFileSync(p, `#!/bin/sh\n${body}\n`);
  chmodSync(p, 0o755);
  return p;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "lookout-legacy-"));
  open = await startTcpListener();
  closed = await closedTcpPort();
  http = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("hello from lookout\n");
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  const a = http.address();
  httpPort = typeof a === "object" && a !== null ? a.port : 0;
});
after(async () => {
  await open.stop();
  await new Promise<void>((r) => http.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const cases: {
  name: string;
  path: () => string;
  args: () => string[];
  timeoutMs?: number;
  status: number;
  output: RegExp;
  longOutput?: RegExp;
  perf?: string[];
  maxMs?: number;
  after?: (o: CheckOutcome) => Promise<void> | void;
}[] = [
  {
    name: "check_dummy 0",
    path: () => `${PLUGINS}/check_dummy`,
    args: () => ["0"],
    status: 0,
    output: /^OK$/,
  },
  {
    name: "check_dummy 1 text",
    path: () => `${PLUGINS}/check_dummy`,
    args: () => ["1", "hmm"],
    status: 1,
    output: /^WARNING: hmm$/,
  },
  {
    name: "check_dummy 2",
    path: () => `${PLUGINS}/check_dummy`,
    args: () => ["2"],
    status: 2,
    output: /^CRITICAL$/,
  },
  {
    name: "check_dummy 3",
    path: () => `${PLUGINS}/check_dummy`,
    args: () => ["3"],
    status: 3,
    output: /^UNKNOWN$/,
  },
  {
    name: "check_tcp open port",
    path: () => `${PLUGINS}/check_tcp`,
    args: () => ["-H", "127.0.0.1", "-p", String(open.port)],
    status: 0,
    output: /^TCP OK - [\d.]+ second response time on 127\.0\.0\.1 port \d+$/,
    perf: ["time"],
  },
  {
    name: "check_tcp closed port",
    path: () => `${PLUGINS}/check_tcp`,
    args: () => ["-H", "127.0.0.1", "-p", String(closed)],
    status: 2,
    output: /Connection refused/,
  },
  {
    name: "check_http against a local server",
    path: () => `${PLUGINS}/check_http`,
    args: () => ["-H", "127.0.0.1", "-p", String(httpPort), "-s", "hello from lookout"],
    status: 0,
    output:
      /^HTTP OK: HTTP\/1\.1 200 OK - \d+ bytes in [\d.]+ second response time $|^HTTP OK: HTTP\/1\.1 200 OK/,
    perf: ["time", "size"],
  },
  {
    name: "check_http content mismatch",
    path: () => `${PLUGINS}/check_http`,
    args: () => ["-H", "127.0.0.1", "-p", String(httpPort), "-s", "absent string"],
    status: 2,
    output: /string 'absent string' not found/,
  },
  {
    name: "check_ping loopback",
    path: () => `${PLUGINS}/check_ping`,
    args: () => ["-H", "127.0.0.1", "-w", "100,20%", "-c", "200,50%", "-p", "1"],
    status: 0,
    output: /^PING OK - Packet loss = 0%, RTA = [\d.]+ ms$/,
    perf: ["rta", "pl"],
  },
  {
    name: "missing plugin is UNKNOWN with a clear output",
    path: () => join(dir, "no-such-plugin"),
    args: () => [],
    status: 3,
    output: /no-such-plugin could not be started: spawn .* ENOENT/,
  },
  {
    name: "exit 127 (missing interpreter)",
    path: () => script("exit127", "echo 'sh: 1: perl: not found' >&2; exit 127"),
    args: () => [],
    status: 3,
    output: /exit127: return code 127 is out of bounds \(plugin not found/,
    longOutput: /perl: not found/,
  },
  {
    name: "exit 255",
    path: () => script("exit255", "echo 'OK but confused'; exit 255"),
    args: () => [],
    status: 3,
    output: /exit255: return code 255 is out of bounds$/,
    longOutput: /^OK but confused$/,
  },
  {
    name: "killed by a signal",
    path: () => script("segv", "kill -SEGV $$"),
    args: () => [],
    status: 3,
    output: /segv was killed by signal SIGSEGV$/,
  },
  {
    name: "stderr stands in for empty stdout",
    path: () => script("stderr", "echo 'CRITICAL - only on stderr' >&2; exit 2"),
    args: () => [],
    status: 2,
    output: /^CRITICAL - only on stderr$/,
  },
  {
    name: "no output at all",
    path: () => script("silent", "exit 1"),
    args: () => [],
    status: 1,
    output: /silent returned no output\)$/,
  },
  {
    name: "infinite loop killed at timeout",
    path: () => script("loop", "while :; do :; done"),
    args: () => [],
    timeoutMs: 300,
    status: 3,
    output: /loop timed out after 0\.3s; its process group was killed$/,
    maxMs: 2000,
  },
  {
    name: "grandchild ignoring SIGTERM dies at timeout",
    path: () =>
      script(
        "forker",
        `sh -c 'trap "" TERM; echo $$ > "${dir}/forker.pid"; while :; do sleep 1; done' & wait`,
      ),
    args: () => [],
    timeoutMs: 400,
    status: 3,
    output: /timed out after 0\.4s/,
    maxMs: 2500,
    async after() {
      const pid = Number(readFileSync(join(dir, "forker.pid"), "utf8"));
      let dead = false;
      for (let i = 0; i < 50 && !dead; i++) {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
          dead = stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
        } catch {
          dead = true;
        }
        if (!dead) await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(dead, `grandchild ${pid} survived`);
    },
  },
  {
    name: "10 MB of output is capped with a marker",
    path: () => script("flood", "echo 'OK - flood | x=1'; head -c 10000000 /dev/zero | tr '\\0' 'a'; exit 0"),
    args: () => [],
    status: 0,
    output: /^OK - flood$/,
    longOutput: /^a{65000,65536}\n\[output truncated by Lookout\]$/,
    perf: ["x"],
    maxMs: 8000,
  },
];

describe("legacy checker", () => {
  const checker = createLegacyChecker();
  for (const c of cases) {
    it(c.name, async () => {
      const t0 = performance.now();
      const o = await checker.run(
        checkTarget<LegacyProbe>(
          { type: "legacy", path: c.path(), args: c.args() },
          { timeoutMs: c.timeoutMs ?? 10_000 },
        ),
        AbortSignal.timeout(20_000),
      );
      const took = performance.now() - t0;
      assert.equal(o.exitStatus, c.status, `${o.output}\n${o.longOutput}`);
      assert.match(o.output, c.output);
      if (c.longOutput) assert.match(o.longOutput, c.longOutput);
      if (c.perf)
        assert.deepEqual(
          o.perfdata.map((p) => p.label),
          c.perf,
        );
      if (c.maxMs) assert.ok(took < c.maxMs, `took ${took} ms`);
      await c.after?.(o);
    });
  }
});
