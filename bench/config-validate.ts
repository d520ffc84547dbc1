/**
 * `node dist/bench/config-validate.js [SERVICES...]`: times `lookout validate` on generated fleets
 * (default 1k, 10k and 100k services). Each size runs in a fresh child process so peak RSS is that
 * document's alone; the child reports the loader's phases too, each as wall/cpu/gc milliseconds:
 * wall time, CPU time of all the process's threads, and garbage-collection pauses.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateFleet } from "../src/config/testing/generate-fleet.js";

const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [1_000, 10_000, 100_000];
const child = fileURLToPath(new URL("./config-validate-child.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "lookout-bench-"));
try {
  console.log("services  bytes      wall(ms)  load(ms)  peakRSS(MB)  phases: wall/cpu/gc (ms)");
  for (const n of sizes) {
    const file = join(dir, `fleet-${n}.cue`);
    const text = generateFleet({ services: n });
    writeFileSync(file, text);
    const start = performance.now();
    const r = spawnSync(process.execPath, [child, file], { encoding: "utf8", maxBuffer: 64 << 20 });
    const wall = performance.now() - start;
    if (r.status !== 0) {
      const out = r.stderr || r.stdout;
      const why = /heap out of memory/.test(out) ? "out of memory (V8 heap limit)" : out.slice(0, 2000);
      console.log(
        `${String(n).padEnd(9)} ${String(text.length).padEnd(10)} ${wall.toFixed(0).padEnd(9)} failed: ${why}`,
      );
      continue;
    }
    const m = JSON.parse(r.stdout) as {
      loadMs: number;
      maxRssKb: number;
      phases: Record<string, { wallMs: number; cpuMs: number; gcMs: number }>;
    };
    const phases = Object.entries(m.phases)
      .map(([k, v]) => `${k}=${v.wallMs.toFixed(0)}/${v.cpuMs.toFixed(0)}/${v.gcMs.toFixed(0)}`)
      .join(" ");
    console.log(
      `${String(n).padEnd(9)} ${String(text.length).padEnd(10)} ${wall.toFixed(0).padEnd(9)} ` +
        `${m.loadMs.toFixed(0).padEnd(9)} ${(m.maxRssKb / 1024).toFixed(0).padEnd(12)} ${phases}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
