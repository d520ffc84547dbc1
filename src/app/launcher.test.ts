import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { MAIN_JS } from "../testing/server-process.js";
import { memorySettings } from "./memory-settings.js";

/** The launcher users run (package.json "bin"): started as an executable, so its #! line counts. */
const LAUNCHER = fileURLToPath(new URL("../../../bin/lookout.js", import.meta.url));

const dir = mkdtempSync(join(tmpdir(), "lookout-launcher-"));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
  readonly listening: Record<string, unknown>;
  /** The server process's environment as the kernel holds it (what glibc read at start). */
  readonly environ: string[];
  /** The reader's young generation (bytes) right after start, from /metrics. */
  readonly youngBytes: number;
}

/** Starts `command args`, waits for the "listening" line, reads what the test needs, stops it. */
async function start(command: string, args: readonly string[], data: string): Promise<Started> {
  const child = spawn(command, [...args, "-listen", "127.0.0.1:0", "-data-dir", join(dir, data)], {
    stdio: ["ignore", "ignore", "pipe"],
    // The node that runs the tests is the one the launcher's `env` finds first.
    env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? "/usr/bin:/bin"}` },
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    const listening = await new Promise<Record<string, unknown>>((resolve, reject) => {
      let log = "";
      const timer = setTimeout(() => reject(new Error(`no "listening" line:\n${log}`)), 20_000);
      child.stderr.setEncoding("utf8").on("data", (c: string) => {
        log += c;
        const line = log.split("\n").find((l) => l.includes('"msg":"listening"'));
        if (line !== undefined) {
          clearTimeout(timer);
          resolve(JSON.parse(line) as Record<string, unknown>);
        }
      });
      void exited.then(() => reject(new Error(`exited before listening:\n${log}`)));
    });
    const environ = readFileSync(`/proc/${child.pid}/environ`, "latin1").split("\0");
    const address = listening.address as string;
    const metrics = await (await fetch(`http://${address}/metrics`)).text();
    const young = /^lookout_heap_space_size_bytes\{thread="reader",space="new_space"\} (\S+)$/m.exec(metrics);
    return { listening, environ, youngBytes: Number(young?.[1]) };
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

describe("bin/lookout.js, the launcher", () => {
  // [what is started, args, the settings the server reports, MALLOC_ARENA_MAX in its environment,
  // most bytes of young generation on the reader's thread after start]
  const cases: [string, string, string[], object, string | undefined, number][] = [
    [
      "the launcher",
      LAUNCHER,
      [],
      { maxSemiSpaceMiB: 1, mallocArenaMax: 2, singleThreadedGc: true },
      "MALLOC_ARENA_MAX=2",
      2 * 1048576,
    ],
    [
      "node dist/src/main.js",
      process.execPath,
      [MAIN_JS],
      { singleThreadedGc: false },
      undefined,
      Number.POSITIVE_INFINITY,
    ],
  ];
  for (const [name, command, args, settings, env, youngMost] of cases) {
    it(`${name}: the memory settings in force`, async () => {
      const s = await start(command, args, name.replace(/\W+/g, "-"));
      const memory = s.listening.memory as Record<string, unknown>;
      assert.equal(memory.maxSemiSpaceMiB, (settings as { maxSemiSpaceMiB?: number }).maxSemiSpaceMiB);
      assert.equal(memory.mallocArenaMax, (settings as { mallocArenaMax?: number }).mallocArenaMax);
      assert.equal(memory.singleThreadedGc, (settings as { singleThreadedGc?: boolean }).singleThreadedGc);
      assert.equal(
        s.environ.find((e) => e.startsWith("MALLOC_ARENA_MAX=")),
        env,
      );
      assert.ok(s.youngBytes > 0 && s.youngBytes <= youngMost, `young generation ${s.youngBytes} bytes`);
    });
  }
});

describe("memorySettings", () => {
  const cases: [
    string,
    string[],
    NodeJS.ProcessEnv,
    { maxSemiSpaceMiB?: number; mallocArenaMax?: number; singleThreadedGc?: boolean },
  ][] = [
    ["nothing set", [], {}, {}],
    [
      "the launcher's",
      ["--max-semi-space-size=1", "--single-threaded-gc"],
      { MALLOC_ARENA_MAX: "2" },
      { maxSemiSpaceMiB: 1, mallocArenaMax: 2, singleThreadedGc: true },
    ],
    ["single-threaded GC spelled with underscores", ["--single_threaded_gc"], {}, { singleThreadedGc: true }],
    ["NODE_OPTIONS", [], { NODE_OPTIONS: "--max-semi-space-size=4 --inspect" }, { maxSemiSpaceMiB: 4 }],
    [
      "the command line wins over NODE_OPTIONS",
      ["--max_semi_space_size", "2"],
      { NODE_OPTIONS: "--max-semi-space-size=4" },
      { maxSemiSpaceMiB: 2 },
    ],
    [
      "the last of several",
      ["--max-semi-space-size=8", "--max-semi-space-size=1"],
      {},
      { maxSemiSpaceMiB: 1 },
    ],
    [
      "the glibc tunable",
      [],
      { GLIBC_TUNABLES: "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=3" },
      { mallocArenaMax: 3 },
    ],
    [
      "MALLOC_ARENA_MAX is reported before the tunable",
      [],
      { MALLOC_ARENA_MAX: "1", GLIBC_TUNABLES: "glibc.malloc.arena_max=3" },
      { mallocArenaMax: 1 },
    ],
    ["nonsense is not a setting", ["--max-semi-space-size=big"], { MALLOC_ARENA_MAX: "x" }, {}],
  ];
  for (const [name, execArgv, env, want] of cases) {
    it(name, () => {
      const s = memorySettings(execArgv, env);
      assert.equal(s.maxSemiSpaceMiB, want.maxSemiSpaceMiB);
      assert.equal(s.mallocArenaMax, want.mallocArenaMax);
      assert.equal(s.singleThreadedGc, want.singleThreadedGc ?? false);
    });
  }
});
