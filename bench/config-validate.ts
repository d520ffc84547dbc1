/**
 * `node dist/bench/config-validate.js [--form plain|templated|mistake]... [SERVICES...]`: times
 * `lookout validate` on generated fleets (default 1k, 10k and 100k services) in each form (default
 * plain and templated): `plain` is data (generate-fleet.ts), `templated` the same kind of fleet as
 * CUE users write it (generate-templated-fleet.ts), `mistake` that template with one typo used by
 * every host (the run must fail with one grouped diagnostic). Each run is a fresh child process,
 * so the wall time is the whole process's and peak RSS that document's alone; the child reports
 * the loader's phases too, each as wall/cpu/gc milliseconds: wall time, CPU time of all the
 * process's threads, and garbage-collection pauses.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateFleet } from "../src/config/testing/generate-fleet.js";
import { generateTemplatedFleet } from "../src/config/testing/generate-templated-fleet.js";

type Form = "plain" | "templated" | "mistake";
const forms: Form[] = [];
const sizeArgs: number[] = [];
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i] ?? "";
  if (a === "--form") {
    const f = process.argv[++i];
    if (f !== "plain" && f !== "templated" && f !== "mistake") throw new Error(`unknown form ${f}`);
    forms.push(f);
  } else sizeArgs.push(Number(a));
}
if (forms.length === 0) forms.push("plain", "templated");
const sizes = sizeArgs.length > 0 ? sizeArgs : [1_000, 10_000, 100_000];

function fleetText(form: Form, services: number): string {
  switch (form) {
    case "plain":
      return generateFleet({ services });
    case "templated":
      return generateTemplatedFleet({ services });
    case "mistake":
      return generateTemplatedFleet({ services, mistake: true });
    default: {
      const never: never = form;
      return never;
    }
  }
}
const child = fileURLToPath(new URL("./config-validate-child.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "lookout-bench-"));
try {
  console.log(
    "form       services  bytes      wall(ms)  cpu(ms)  load(ms)  peakRSS(MB)  diags  phases: wall/cpu/gc (ms)",
  );
  for (const form of forms) for (const n of sizes) run(form, n);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function run(form: Form, n: number): void {
  {
    const file = join(dir, `fleet-${form}-${n}.cue`);
    const text = fleetText(form, n);
    writeFileSync(file, text);
    const start = performance.now();
    const args = form === "mistake" ? [child, file, "--errors"] : [child, file];
    const r = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 64 << 20 });
    const wall = performance.now() - start;
    const head = `${form.padEnd(10)} ${String(n).padEnd(9)} ${String(text.length).padEnd(10)} ${wall.toFixed(0).padEnd(9)}`;
    if (r.status !== 0) {
      const out = r.stderr || r.stdout;
      const why = /heap out of memory/.test(out) ? "out of memory (V8 heap limit)" : out.slice(0, 2000);
      console.log(`${head} failed: ${why}`);
      return;
    }
    const m = JSON.parse(r.stdout) as {
      loadMs: number;
      cpuMs: number;
      maxRssKb: number;
      diagnostics: number;
      phases: Record<string, { wallMs: number; cpuMs: number; gcMs: number }>;
    };
    const first = form === "mistake" ? `  first: ${r.stderr.trim().slice(0, 300)}` : "";
    const phases = Object.entries(m.phases)
      .map(([k, v]) => `${k}=${v.wallMs.toFixed(0)}/${v.cpuMs.toFixed(0)}/${v.gcMs.toFixed(0)}`)
      .join(" ");
    console.log(
      `${head} ${m.cpuMs.toFixed(0).padEnd(8)} ${m.loadMs.toFixed(0).padEnd(9)} ` +
        `${(m.maxRssKb / 1024).toFixed(0).padEnd(12)} ${String(m.diagnostics).padEnd(6)} ${phases}${first}`,
    );
  }
}
