/**
 * CUE export benchmark: for 1k, 10k and 100k services (100, 1k, 10k hosts × 10 services) it runs
 * each size in fresh child processes that generate the document: one times `compile()` +
 * `toJSON()` and reports its peak RSS (process.resourceUsage().maxRSS, taken right after
 * `toJSON()`, before the output is checked); another times parsing alone (a phase of `compile()`,
 * shown for reference). Parsing runs in a process of its own so that its tree, garbage by then,
 * does not count towards the export's peak.
 *
 *   node dist/bench/cue-export.js [--sizes 100,1000,10000] [--verify]
 *
 * The output is checked (every host and service, a few services field by field); `--verify` also
 * exports each size with the fast path off (`CUE_FAST=0`) and compares the text.
 *
 * Target: 10k hosts × 10 services exported in < 1 s and < 300 MB, growing close to linearly.
 */

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { loadEngine } from "../src/cue/conformance/engine.js";
import { parseFile } from "../src/cue/syntax/parser.js";
import { generateFleet } from "./gen-cue-fleet.js";

interface Measurement {
  hosts: number;
  services: number;
  bytes: number;
  parseMs: number;
  compileMs?: number;
  /** CPU time of compile + toJSON, all threads (GC and JIT included): steadier than wall time here. */
  cpuMs?: number;
  exportMs?: number;
  errors?: string;
  checked?: string;
  /** SHA-256 of the exported text (to compare with the general evaluator's, `--verify`). */
  sha?: string;
  maxRssMB: number;
}

// What host-0's first services export to, field order included (defaults, the pattern alias's
// name, the union branch's fields after the written ones, lists).
const expected: Record<string, string> = {
  svc0: `{"check":{"type":"tcp","port":1,"timeout":"10s"},"interval":"30s","tags":["edge","s0"],"name":"svc0","retries":3,"notify":true}`,
  svc1: `{"check":{"type":"http","url":"https://h1.example/health","status":200,"timeout":"10s"},"name":"svc1","interval":"60s","retries":3,"notify":true,"tags":[]}`,
  svc4: `{"check":{"type":"tls","warnDays":14,"port":443},"interval":"30s","tags":["edge","s4"],"name":"svc4","retries":3,"notify":true}`,
  svc6: `{"check":{"type":"command","command":["check_disk","-w","16%"],"timeout":"30s"},"name":"svc6","interval":"60s","retries":3,"notify":true,"tags":[]}`,
};

/** What is wrong with the exported fleet of `hosts` hosts, or "ok". */
function check(text: string, hosts: number): string {
  const data = JSON.parse(text) as {
    hosts: Record<string, { labels: Record<string, string>; services: Record<string, unknown> }>;
  };
  const names = Object.keys(data.hosts);
  if (names.length !== hosts) return `${names.length} hosts exported`;
  for (const h of names) {
    const n = Object.keys(data.hosts[h]?.services ?? {}).length;
    if (n !== 10) return `${h}: ${n} services`;
  }
  const h0 = data.hosts["host-0"];
  if (JSON.stringify(h0?.labels) !== `{"env":"prod","team":"ta"}`) return "host-0: labels";
  for (const [svc, want] of Object.entries(expected)) {
    const got = JSON.stringify(h0?.services[svc]);
    if (got !== want) return `host-0.${svc}: ${got}`;
  }
  return "ok";
}

/** Times parsing alone (in a process of its own). */
function parseChild(hosts: number): void {
  const text = generateFleet(hosts);
  const t = performance.now();
  const parsed = parseFile("fleet.cue", text);
  const parseMs = performance.now() - t;
  const errors = parsed.errors.length > 0 ? `syntax: ${parsed.errors[0]?.message}` : undefined;
  process.stdout.write(`${JSON.stringify({ parseMs, errors })}\n`);
}

async function child(hosts: number): Promise<void> {
  const text = generateFleet(hosts);
  const m: Measurement = { hosts, services: hosts * 10, bytes: text.length, parseMs: 0, maxRssMB: 0 };
  const engine = await loadEngine();
  if (typeof engine === "string") {
    m.errors = engine;
  } else {
    const cpu = process.cpuUsage();
    let t = performance.now();
    const v = engine.compile([{ name: "fleet.cue", text }], { maxSteps: 1e9 });
    m.compileMs = performance.now() - t;
    t = performance.now();
    const out = v.toJSON(0);
    m.exportMs = performance.now() - t;
    const used = process.cpuUsage(cpu);
    m.cpuMs = (used.user + used.system) / 1000;
    m.maxRssMB = process.resourceUsage().maxRSS / 1024;
    if (!out.ok) {
      m.errors = `${out.errors.length} errors, first: ${out.errors[0]?.path.join(".")}: ${out.errors[0]?.message}`;
    } else {
      m.checked = check(out.text, hosts);
      m.sha = createHash("sha256").update(out.text).digest("hex");
    }
  }
  process.stdout.write(`${JSON.stringify(m)}\n`);
}

/** Runs this file with `args` in a fresh process; its last output line as JSON, or undefined. */
function run(args: readonly string[], env?: Record<string, string>): { m: unknown; err: string } {
  const self = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, [self, ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 24,
    env: { ...process.env, ...env },
  });
  const line = r.stdout.trim().split("\n").pop() ?? "";
  try {
    return { m: JSON.parse(line), err: "" };
  } catch {
    return { m: undefined, err: `child failed (status ${r.status}): ${r.stderr.slice(0, 500)}` };
  }
}

function parent(sizes: readonly number[], verify: boolean): void {
  console.log(
    "hosts   services  doc MB  parse ms  compile ms  export ms  total ms  cpu ms  peak RSS MB  result",
  );
  const done: { services: number; total: number; rss: number }[] = [];
  for (const hosts of sizes) {
    const x = run(["--child", String(hosts)]);
    const p = run(["--parse-child", String(hosts)]);
    if (x.m === undefined || p.m === undefined) {
      console.log(`${hosts}: ${x.err}${p.err}`);
      continue;
    }
    const m = x.m as Measurement;
    const pm = p.m as { parseMs: number; errors?: string };
    m.parseMs = pm.parseMs;
    m.errors ??= pm.errors;
    if (verify && m.checked === "ok") {
      // The same export by the general evaluator (fast path off) must give the same text.
      const g = run(["--child", String(hosts)], { CUE_FAST: "0" }).m as Measurement | undefined;
      m.checked =
        g?.sha === m.sha ? "ok, same text as the general evaluator" : "DIFFERS from the general evaluator";
    }
    const total = (m.compileMs ?? 0) + (m.exportMs ?? 0);
    const f = (x: number | undefined, w: number): string =>
      (x === undefined ? "-" : x.toFixed(0)).padStart(w);
    console.log(
      `${String(m.hosts).padStart(5)}  ${String(m.services).padStart(8)}  ${(m.bytes / 1e6).toFixed(1).padStart(6)}` +
        `  ${f(m.parseMs, 8)}  ${f(m.compileMs, 10)}  ${f(m.exportMs, 9)}  ${f(m.compileMs === undefined ? undefined : total, 8)}` +
        `  ${f(m.cpuMs, 6)}` +
        `  ${m.maxRssMB.toFixed(0).padStart(11)}  ${m.errors ?? m.checked ?? ""}`,
    );
    if (m.compileMs !== undefined) done.push({ services: m.services, total, rss: m.maxRssMB });
  }
  // Growth: time per service should stay flat if evaluation is linear.
  for (let k = 1; k < done.length; k++) {
    const a = done[k - 1];
    const b = done[k];
    if (a === undefined || b === undefined) continue;
    const perA = a.total / a.services;
    const perB = b.total / b.services;
    console.log(
      `growth ${a.services} -> ${b.services} services: time x${(b.total / a.total).toFixed(1)}, ` +
        `per service x${(perB / perA).toFixed(2)}, peak RSS x${(b.rss / a.rss).toFixed(1)}`,
    );
  }
  const big = done.find((d) => d.services === 100_000);
  if (big !== undefined) {
    console.log(
      `target (100k services < 1000 ms, < 300 MB): ${big.total.toFixed(0)} ms, ${big.rss.toFixed(0)} MB — ` +
        `${big.total < 1000 && big.rss < 300 ? "met" : "not met"}`,
    );
  }
}

const argv = process.argv.slice(2);
if (argv[0] === "--child") {
  await child(Number(argv[1]));
} else if (argv[0] === "--parse-child") {
  parseChild(Number(argv[1]));
} else {
  const i = argv.indexOf("--sizes");
  const sizes = i >= 0 ? (argv[i + 1] ?? "").split(",").map(Number) : [100, 1000, 10000];
  parent(sizes, argv.includes("--verify"));
}
