import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { WasmProbe } from "../../model/config.js";
import { checkTarget, describeCheckContract } from "../../testing/check-contract.js";
import { TRUNCATION_MARKER } from "../process/run-plugin.js";
import { createWasmChecker, type WasmChecker } from "./index.js";
import {
  buildWat,
  ECHO_ARGS,
  ENDLESS_LOOP,
  FOREIGN_IMPORT,
  MEMORY_HOG,
  OPEN_FILE,
  printAndExit,
  TRAP,
  UNSUPPORTED_CALL,
} from "./wat-fixtures.js";

let dir = "";
const mods: Record<string, string> = {};
before(async () => {
  dir = mkdtempSync(join(tmpdir(), "lookout-wasm-"));
  const sources: Record<string, string> = {
    hello: printAndExit("OK - hello from wasm | runs=1;5;10;0\nsecond line\n"),
    noexit: printAndExit("OK - returned from _start"),
    warn: printAndExit("WARNING - meh", 1),
    crit: printAndExit("CRITICAL - bad | 'free space'=12%;20:;10:;0;100", 2),
    unknown: printAndExit("UNKNOWN - dunno", 3),
    exit7: printAndExit("what", 7),
    flood: printAndExit(`OK - flood\n${"x".repeat(70_000)}`, 0),
    args: ECHO_ARGS,
    loop: ENDLESS_LOOP,
    trap: TRAP,
    open: OPEN_FILE,
    hog: MEMORY_HOG,
    hog3: MEMORY_HOG.replace('(memory (export "memory") 2)', '(memory (export "memory") 2 3)'),
    huge: MEMORY_HOG.replace('(memory (export "memory") 2)', '(memory (export "memory") 300)'),
    foreign: FOREIGN_IMPORT,
    unsupported: UNSUPPORTED_CALL,
  };
  // The example in docs/wasm.md must keep working (tests run from the repository root).
  const doc = /```wat\n([\s\S]*?)```/.exec(readFileSync("docs/wasm.md", "utf8"));
  sources.docExample = doc?.[1] ?? "";
  for (const [name, wat] of Object.entries(sources)) mods[name] = await buildWat(dir, name, wat);
  writeFileSync(join(dir, "garbage.wasm"), "this is not wasm");
  mods.garbage = join(dir, "garbage.wasm");
});
after(() => rmSync(dir, { recursive: true, force: true }));

const probe = (name: string, args: string[] = []): WasmProbe => ({
  type: "wasm",
  module: mods[name] ?? name,
  args,
});

describeCheckContract("wasm", async () => {
  const checker = createWasmChecker({ workers: 2 });
  return {
    checker,
    ok: checkTarget(probe("hello")),
    failing: checkTarget(probe("crit")),
    failingOutput: /^CRITICAL - bad$/,
    hanging: checkTarget(probe("loop"), { timeoutMs: 60_000 }),
    malformed: [checkTarget(probe("garbage")), checkTarget(probe("foreign"))],
    teardown: () => checker.close(),
  };
});

describe("wasm checker", () => {
  let checker: WasmChecker;
  before(() => {
    checker = createWasmChecker({ workers: 2, maxMemoryMb: 16 });
  });
  after(() => checker.close());

  const cases: {
    name: string;
    probe: () => WasmProbe;
    timeoutMs?: number;
    status: number;
    output: string | RegExp;
    longOutput?: string | RegExp;
    perf?: { label: string; value: number; uom: string }[];
    maxMs?: number;
  }[] = [
    {
      name: "hello: output, long output, perfdata; exit 0",
      probe: () => probe("hello"),
      status: 0,
      output: "OK - hello from wasm",
      longOutput: "second line",
      perf: [{ label: "runs", value: 1, uom: "" }],
    },
    {
      name: "the example of docs/wasm.md",
      probe: () => probe("docExample"),
      status: 0,
      output: "OK - all good",
      perf: [{ label: "items", value: 3, uom: "" }],
    },
    {
      name: "returning from _start is exit 0",
      probe: () => probe("noexit"),
      status: 0,
      output: "OK - returned from _start",
    },
    { name: "exit 1", probe: () => probe("warn"), status: 1, output: "WARNING - meh" },
    {
      name: "exit 2 with quoted perfdata",
      probe: () => probe("crit"),
      status: 2,
      output: "CRITICAL - bad",
      perf: [{ label: "free space", value: 12, uom: "%" }],
    },
    { name: "exit 3", probe: () => probe("unknown"), status: 3, output: "UNKNOWN - dunno" },
    {
      name: "exit 7 is out of bounds",
      probe: () => probe("exit7"),
      status: 3,
      output: /return code 7 is out of bounds$/,
    },
    {
      name: "args reach the module",
      probe: () => probe("args", ["a b", "c"]),
      status: 0,
      output: "OK - args: a b c",
    },
    {
      name: "endless loop killed at timeout",
      probe: () => probe("loop"),
      timeoutMs: 300,
      status: 3,
      output: /loop\.wasm timed out after 0\.3s; its worker was terminated$/,
      maxMs: 2000,
    },
    {
      name: "trap",
      probe: () => probe("trap"),
      status: 3,
      output: /trap\.wasm: trapped: RuntimeError: unreachable$/,
      longOutput: "about to trap",
    },
    {
      name: "opening a file is denied",
      probe: () => probe("open"),
      status: 2,
      output: "CRITICAL - denied: prestat errno 08, path_open errno 08",
    },
    // 16 MiB is 256 pages of 64 KiB: growth stops there.
    { name: "memory is capped", probe: () => probe("hog"), status: 0, output: "OK - pages 00256" },
    {
      name: "a lower declared maximum is kept",
      probe: () => probe("hog3"),
      status: 0,
      output: "OK - pages 00003",
    },
    {
      name: "a module needing more memory than the cap is refused",
      probe: () => probe("huge"),
      status: 3,
      output:
        /huge\.wasm: cannot load module: module needs 18\.75 MiB of memory at start, more than the 16 MiB allowed$/,
    },
    {
      name: "unknown imports refuse to link",
      probe: () => probe("foreign"),
      status: 3,
      output:
        /foreign\.wasm: module imports env\.launch_missiles \(function\); only wasi_snapshot_preview1 functions exist$/,
    },
    {
      name: "unsupported WASI calls give ENOSYS; clock and random work",
      probe: () => probe("unsupported"),
      status: 3,
      output: "UNKNOWN - sock_accept gave ENOSYS",
    },
    {
      name: "garbage file",
      probe: () => probe("garbage"),
      status: 3,
      output: /garbage\.wasm: cannot load module: not a WebAssembly module/,
    },
    {
      name: "missing file",
      probe: () => probe("/nonexistent/x.wasm"),
      status: 3,
      output: /cannot load module: ENOENT/,
    },
    {
      name: "output capped at 64 KiB",
      probe: () => probe("flood"),
      status: 0,
      output: "OK - flood",
      longOutput: new RegExp(`^x{65000,65536}\\n${TRUNCATION_MARKER.replaceAll(/[[\]]/g, "\\$&")}$`),
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const t0 = performance.now();
      const o = await checker.run(
        checkTarget(c.probe(), { timeoutMs: c.timeoutMs ?? 10_000 }),
        AbortSignal.timeout(10_000),
      );
      const took = performance.now() - t0;
      assert.equal(o.exitStatus, c.status, o.output);
      if (typeof c.output === "string") assert.equal(o.output, c.output);
      else assert.match(o.output, c.output);
      if (typeof c.longOutput === "string") assert.equal(o.longOutput, c.longOutput);
      else if (c.longOutput) assert.match(o.longOutput, c.longOutput);
      if (c.perf)
        assert.deepEqual(
          o.perfdata.map((p) => ({ label: p.label, value: p.value, uom: p.uom })),
          c.perf,
        );
      if (c.maxMs !== undefined) assert.ok(took < c.maxMs, `took ${took} ms`);
    });
  }

  it("keeps running other modules while one loops, and recovers after the kill", async () => {
    const loop = checker.run(checkTarget(probe("loop"), { timeoutMs: 500 }), AbortSignal.timeout(5000));
    const quick = await checker.run(checkTarget(probe("hello")), AbortSignal.timeout(5000));
    assert.equal(quick.exitStatus, 0);
    assert.equal((await loop).exitStatus, 3);
    const again = await Promise.all(
      [1, 2, 3].map(() => checker.run(checkTarget(probe("warn")), AbortSignal.timeout(5000))),
    );
    assert.deepEqual(
      again.map((o) => o.exitStatus),
      [1, 1, 1],
    );
  });

  // A module growing its memory a page at a time (it takes a minute to reach the 256 MiB cap)
  // ignored worker.terminate() under V8's default tiering: the pool never lost the thread, and
  // neither a stop nor process.exit could end it (compiler-flags.ts).
  it("terminates a worker that grows its memory in a loop, so close() ends", async () => {
    const c = createWasmChecker({ workers: 1 });
    const o = await c.run(checkTarget(probe("hog"), { timeoutMs: 300 }), AbortSignal.timeout(5000));
    assert.match(o.output, /timed out after 0\.3s; its worker was terminated$/);
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      c.close().then(() => "closed"),
      new Promise((resolve) => {
        timer = setTimeout(() => resolve("still running after 10 s"), 10_000);
      }),
    ]);
    clearTimeout(timer);
    assert.equal(closed, "closed");
  });

  it("recompiles a module when its file changes", async () => {
    const path = await buildWat(dir, "changing", printAndExit("OK - version one", 0));
    const c = createWasmChecker({ workers: 1 });
    try {
      const one = await c.run(
        checkTarget({ type: "wasm", module: path, args: [] }),
        AbortSignal.timeout(5000),
      );
      assert.equal(one.output, "OK - version one");
      await buildWat(dir, "changing", printAndExit("WARNING - version two", 1));
      const future = new Date(Date.now() + 5000);
      utimesSync(path, future, future);
      const two = await c.run(
        checkTarget({ type: "wasm", module: path, args: [] }),
        AbortSignal.timeout(5000),
      );
      assert.equal(two.output, "WARNING - version two");
      assert.equal(two.exitStatus, 1);
    } finally {
      await c.close();
    }
  });
});
