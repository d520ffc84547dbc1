/**
 * CUE parse-only benchmark: for 1k, 10k and 100k services (100, 1k, 10k hosts × 10 services of
 * `bench/gen-cue-fleet.ts`) it runs each size in a fresh child process (with `--expose-gc`) that
 * generates the document, then reports:
 *  - cold parse time (the first parse in the process, GC included: what `compile()` pays), as wall
 *    time and as CPU time of the process (GC helper threads included; steadier on a busy machine),
 *    and the main-thread GC pauses within it (how much of it is the young generation copying the
 *    tree: every node survives),
 *  - warm parse time (median of `--repeat` further parses, each after a full GC),
 *  - the heap retained by one AST (heap used after a full GC with the tree alive, minus before),
 *  - peak RSS of the child (process.resourceUsage().maxRSS).
 *
 *   node dist/bench/cue-parse.js [--sizes 100,1000,10000] [--repeat 5] [--semi-space MB]
 *
 * `--semi-space MB` runs the children with `--max-semi-space-size=MB` (V8's default is 16): how
 * much of the parse is the young generation copying a tree that all survives, as a worker with a
 * larger `resourceLimits.maxYoungGenerationSizeMb` (about three semi-spaces) would see it.
 *
 * Target (issue 3, parse share of the export budget): 10k hosts (7.3 MB) parsed in ≤ 180 ms with a
 * retained AST as small as possible.
 */

import { spawnSync } from "node:child_process";
import { PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseFile } from "../src/cue/syntax/parser.js";
import { generateFleet } from "./gen-cue-fleet.js";

interface Measurement {
  hosts: number;
  services: number;
  bytes: number;
  coldMs: number;
  coldCpuMs: number;
  /** GC pauses during the cold parse (main thread), and how many. */
  coldGcMs: number;
  coldGcs: number;
  warmMs: number;
  retainedMB: number;
  maxRssMB: number;
  errors: number;
}

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g === undefined) throw new Error("run the child with --expose-gc");
  g();
  g();
}

async function child(hosts: number, repeat: number): Promise<void> {
  const text = generateFleet(hosts);
  gc();
  const before = process.memoryUsage().heapUsed;
  const pauses: { start: number; duration: number }[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ start: e.startTime, duration: e.duration });
  });
  obs.observe({ entryTypes: ["gc"] });
  let t = performance.now();
  const cpu = process.cpuUsage();
  let parsed: ReturnType<typeof parseFile> | undefined = parseFile("fleet.cue", text);
  const coldMs = performance.now() - t;
  const cpuUsed = process.cpuUsage(cpu);
  const coldEnd = t + coldMs;
  // GC entries are delivered asynchronously.
  await new Promise((resolve) => setTimeout(resolve, 10));
  obs.disconnect();
  const coldPauses = pauses.filter((p) => p.start >= t && p.start <= coldEnd).map((p) => p.duration);
  gc();
  const retained = process.memoryUsage().heapUsed - before;
  const errors = parsed.errors.length;
  parsed = undefined;
  const warm: number[] = [];
  for (let k = 0; k < repeat; k++) {
    gc();
    t = performance.now();
    parsed = parseFile("fleet.cue", text);
    warm.push(performance.now() - t);
    parsed = undefined;
  }
  warm.sort((a, b) => a - b);
  const m: Measurement = {
    hosts,
    services: hosts * 10,
    bytes: text.length,
    coldMs,
    coldCpuMs: (cpuUsed.user + cpuUsed.system) / 1000,
    coldGcMs: coldPauses.reduce((a, b) => a + b, 0),
    coldGcs: coldPauses.length,
    warmMs: warm[warm.length >> 1] ?? Number.NaN,
    retainedMB: retained / 1048576,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
    errors,
  };
  process.stdout.write(`${JSON.stringify(m)}\n`);
}

function parent(sizes: readonly number[], repeat: number, semiSpaceMB: number | undefined): void {
  const self = fileURLToPath(import.meta.url);
  console.log(
    "hosts  services  doc MB  cold ms  cold cpu ms  cold GC ms (n)  warm ms  retained MB  peak RSS MB  errors",
  );
  for (const hosts of sizes) {
    const flags = semiSpaceMB === undefined ? [] : [`--max-semi-space-size=${semiSpaceMB}`];
    const r = spawnSync(
      process.execPath,
      ["--expose-gc", ...flags, self, "--child", String(hosts), String(repeat)],
      {
        encoding: "utf8",
        maxBuffer: 1 << 24,
      },
    );
    const line = r.stdout.trim().split("\n").pop() ?? "";
    let m: Measurement;
    try {
      m = JSON.parse(line) as Measurement;
    } catch {
      console.log(`${hosts}: child failed (status ${r.status}): ${r.stderr.slice(0, 500)}`);
      continue;
    }
    console.log(
      `${String(m.hosts).padStart(5)}  ${String(m.services).padStart(8)}  ${(m.bytes / 1e6).toFixed(1).padStart(6)}` +
        `  ${m.coldMs.toFixed(0).padStart(7)}  ${m.coldCpuMs.toFixed(0).padStart(11)}` +
        `  ${`${m.coldGcMs.toFixed(0)} (${m.coldGcs})`.padStart(14)}  ${m.warmMs.toFixed(0).padStart(7)}` +
        `  ${m.retainedMB.toFixed(1).padStart(11)}  ${m.maxRssMB.toFixed(0).padStart(11)}  ${m.errors}`,
    );
  }
}

const argv = process.argv.slice(2);
if (argv[0] === "--child") {
  await child(Number(argv[1]), Number(argv[2] ?? 5));
} else {
  const i = argv.indexOf("--sizes");
  const sizes = i >= 0 ? (argv[i + 1] ?? "").split(",").map(Number) : [100, 1000, 10000];
  const r = argv.indexOf("--repeat");
  const repeat = r >= 0 ? Number(argv[r + 1] ?? 5) : 5;
  const m = argv.indexOf("--semi-space");
  parent(sizes, repeat, m >= 0 ? Number(argv[m + 1]) : undefined);
}
