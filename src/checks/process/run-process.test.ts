import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  cleanEnv,
  DEFAULT_OUTPUT_CAP,
  type ProcessResult,
  type ProcessSpec,
  runProcess,
  runProcessInProcess,
  SPAWN_HELPER_PATH,
  spawnMode,
} from "./run-process.js";
import { createSpawnHelper } from "./spawn-helper.js";

let dir = "";
before(() => {
  // The helper is built by `npm run build`; a bare `tsc` leaves it out, so build it here if needed.
  const root = fileURLToPath(new URL("../../../../", import.meta.url));
  const b = spawnSync(process.execPath, ["scripts/build-spawn-helper.mjs", "--if-stale"], { cwd: root });
  assert.equal(b.status, 0, String(b.stderr));
  dir = mkdtempSync(join(tmpdir(), "lookout-proc-"));
  // A secret in Lookout's own environment must never reach a child.
  process.env.LOOKOUT_TEST_SECRET = "hunter2";
});
after(() => {
  rmSync(dir, { recursive: true, force: true });
  delete process.env.LOOKOUT_TEST_SECRET;
});

/** Whether a pid is gone (or a zombie waiting for a reaper, which is dead for our purposes). */
function isDead(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

async function waitDead(pid: number): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    if (isDead(pid)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

const sh = (script: string, timeoutMs = 0) => ({ file: "/bin/sh", args: ["-c", script], timeoutMs });

const cases: {
  name: string;
  script: string;
  timeoutMs?: number;
  abortAfterMs?: number;
  maxMs: number;
  check: (r: ProcessResult) => void;
  pidFile?: boolean;
  /** The pid in the pid file escaped the group on purpose (setsid); the test kills it itself. */
  escaped?: boolean;
}[] = [
  {
    name: "exit code and stdout",
    script: "echo 'WARNING - x | a=1'; exit 1",
    maxMs: 2000,
    check: (r) => {
      assert.deepEqual(r.end, { kind: "exited", code: 1 });
      assert.equal(r.stdout, "WARNING - x | a=1\n");
      assert.equal(r.truncated, false);
    },
  },
  {
    name: "stderr captured separately",
    script: "echo oops >&2; exit 2",
    maxMs: 2000,
    check: (r) => {
      assert.equal(r.stdout, "");
      assert.equal(r.stderr, "oops\n");
    },
  },
  {
    name: "infinite loop killed at timeout",
    script: "while :; do :; done",
    timeoutMs: 300,
    maxMs: 2000,
    check: (r) => assert.deepEqual(r.end, { kind: "timeout", afterMs: 300 }),
  },
  {
    name: "grandchild that ignores SIGTERM dies with the group at timeout",
    script: `sh -c 'trap "" TERM HUP; echo $$ > "$PIDFILE"; while :; do sleep 1; done' & wait`,
    timeoutMs: 400,
    maxMs: 2500,
    pidFile: true,
    check: (r) => assert.equal(r.end.kind, "timeout"),
  },
  {
    name: "a background child left behind is killed when the plugin exits",
    script: `sh -c 'trap "" TERM; echo $$ > "$PIDFILE"; exec sleep 100' & sleep 0.2; echo done`,
    maxMs: 2000,
    pidFile: true,
    check: (r) => {
      assert.deepEqual(r.end, { kind: "exited", code: 0 });
      assert.equal(r.stdout, "done\n");
    },
  },
  {
    name: "a grandchild that escaped the group with setsid cannot hold the result",
    script: `setsid sh -c 'echo $$ > "$PIDFILE"; exec sleep 30' & sleep 0.2; echo done`,
    maxMs: 2000,
    pidFile: true,
    escaped: true,
    check: (r) => {
      assert.deepEqual(r.end, { kind: "exited", code: 0 });
      assert.equal(r.stdout, "done\n");
    },
  },
  {
    name: "10 MB of output is capped",
    script: "head -c 10000000 /dev/zero | tr '\\0' a; echo; echo tail; exit 0",
    maxMs: 8000,
    check: (r) => {
      assert.deepEqual(r.end, { kind: "exited", code: 0 });
      assert.equal(r.stdout.length, DEFAULT_OUTPUT_CAP);
      assert.equal(r.truncated, true);
    },
  },
  {
    name: "endless output is capped and killed at timeout",
    script: "yes",
    timeoutMs: 300,
    maxMs: 3000,
    check: (r) => {
      assert.equal(r.end.kind, "timeout");
      assert.equal(r.stdout.length, DEFAULT_OUTPUT_CAP);
      assert.equal(r.truncated, true);
    },
  },
  {
    name: "abort kills the group",
    script: "sleep 100",
    abortAfterMs: 150,
    maxMs: 2000,
    check: (r) => assert.deepEqual(r.end, { kind: "aborted" }),
  },
  {
    name: "killed by a signal",
    script: "kill -SEGV $$",
    maxMs: 2000,
    check: (r) => assert.deepEqual(r.end, { kind: "signaled", signal: "SIGSEGV" }),
  },
];

type Runner = (spec: ProcessSpec, signal?: AbortSignal) => Promise<ProcessResult>;
/** Every case runs both ways a child can be started: the contract is the same. */
const runners: { name: string; run: Runner }[] = [
  { name: "in-process", run: runProcessInProcess },
  // runProcess itself: through the spawn helper, which before() has built.
  { name: "spawn helper", run: runProcess },
];

it("runProcess uses the spawn helper once it is built", () => {
  assert.equal(spawnMode(), "helper");
});

for (const { name: how, run } of runners)
  describe(`runProcess (${how})`, () => {
    for (const c of cases) {
      it(c.name, async () => {
        const pidFile = join(dir, `${c.name.replaceAll(/\W/g, "_")}.pid`);
        const ac = new AbortController();
        if (c.abortAfterMs !== undefined) setTimeout(() => ac.abort(), c.abortAfterMs);
        const spec = sh(c.script, c.timeoutMs);
        const t0 = performance.now();
        const r = await run({ ...spec, env: { PATH: "/usr/bin:/bin", PIDFILE: pidFile } }, ac.signal);
        const took = performance.now() - t0;
        assert.ok(took < c.maxMs, `took ${took} ms`);
        c.check(r);
        if (c.pidFile) {
          const pid = Number(readFileSync(pidFile, "utf8").trim());
          assert.ok(pid > 0);
          if (c.escaped) process.kill(pid, "SIGKILL");
          assert.ok(await waitDead(pid), `grandchild ${pid} still alive`);
        }
      });
    }

    it("uses the clean environment by default", async () => {
      const r = await run({ file: "/usr/bin/env", args: [] });
      assert.ok(!r.stdout.includes("hunter2"));
      assert.deepEqual(
        r.stdout.trim().split("\n").sort(),
        [
          "LANG=C",
          "LC_ALL=C",
          "PATH=/usr/local/bin:/usr/bin:/bin",
          ...(process.env.TZ ? [`TZ=${process.env.TZ}`] : []),
        ].sort(),
      );
    });

    it("reports a missing program as a spawn error", async () => {
      const r = await run({ file: "/nonexistent/plugin", args: [] });
      assert.equal(r.end.kind, "spawn-error");
      assert.match(r.end.kind === "spawn-error" ? r.end.message : "", /ENOENT/);
    });

    it("passes arguments without a shell", async () => {
      const r = await run({
        file: "/usr/bin/printf",
        args: ["%s|", "a b", "$(id)", "`id`", "x;y", ""],
      });
      assert.equal(r.stdout, "a b|$(id)|`id`|x;y||");
    });

    it("looks a bare name up in the child's PATH", async () => {
      const r = await run({ file: "printf", args: ["%s", "found"] });
      assert.deepEqual(r.end, { kind: "exited", code: 0 });
      assert.equal(r.stdout, "found");
    });

    it("returns at once when the signal is already aborted", async () => {
      const r = await run({ file: "/bin/sleep", args: ["10"] }, AbortSignal.abort());
      assert.deepEqual(r.end, { kind: "aborted" });
    });
  });

describe("spawn helper", () => {
  it("drops a run aborted before the helper started it", async () => {
    const h = createSpawnHelper(SPAWN_HELPER_PATH);
    try {
      const mark = join(dir, "started");
      const ac = new AbortController();
      // The spawn and the kill leave in one write (requests of one turn are corked together).
      const run = h.run(
        {
          file: "/bin/sh",
          args: ["-c", 'touch "$MARK"'],
          env: { ...cleanEnv(), MARK: mark },
          outputCap: 1024,
        },
        ac.signal,
      );
      ac.abort();
      assert.deepEqual((await run).end, { kind: "aborted" });
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(existsSync(mark), false, "the plugin never ran");
      const after = await h.run({
        file: "/bin/sh",
        args: ["-c", "echo ok"],
        env: cleanEnv(),
        outputCap: 1024,
      });
      assert.equal(after.stdout, "ok\n");
    } finally {
      h.close();
    }
  });

  it("ends the runs of a helper that died as spawn errors, and starts a new one", async () => {
    const h = createSpawnHelper(SPAWN_HELPER_PATH);
    try {
      const pidFile = join(dir, "orphan.pid");
      const spec = {
        file: "/bin/sh",
        args: ["-c", 'echo $$ > "$PIDFILE"; exec sleep 30'],
        env: { ...cleanEnv(), PIDFILE: pidFile },
        outputCap: 1024,
      };
      const running = h.run(spec);
      // The plugin has started (its pid is written) before its helper is killed: otherwise the
      // kill may come first and leave no pid to stop.
      for (
        const end = Date.now() + 10_000;
        !existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "";
      ) {
        assert.ok(Date.now() < end, "the plugin never wrote its pid");
        await new Promise((r) => setTimeout(r, 10));
      }
      // The helper is the plugin's parent: find it through a second, quick run.
      const probe = await h.run({ ...spec, args: ["-c", "echo $PPID"] });
      const helperPid = Number(probe.stdout.trim());
      assert.ok(helperPid > 1);
      process.kill(helperPid, "SIGKILL");
      const r = await running;
      assert.equal(r.end.kind, "spawn-error");
      // A helper killed outright cannot kill its children's groups: the test stops its own.
      process.kill(-Number(readFileSync(pidFile, "utf8").trim()), "SIGKILL");
      const again = await h.run({ ...spec, args: ["-c", "echo again"] });
      assert.deepEqual(again.end, { kind: "exited", code: 0 });
      assert.equal(again.stdout, "again\n");
    } finally {
      h.close();
    }
  });
});
