/**
 * `npm run bench:cue:template-error [-- --hosts N] [--template pattern|hidden]... [--mistake type|field]...`
 * (issue 31, item 4): one mistake in a template that N hosts (default 10,000) instantiate, run through
 * the real `lookout validate` (bin/lookout.js, as users run it). For each form it prints the wall
 * time, the CPU time and peak RSS of the process (both read from /proc every 10 ms until it exits),
 * the number of diagnostic lines (the goal: one per distinct mistake, counting the hosts) and the
 * first of them, and the load average, since the machine is shared. The targets: < 2 s, < 500 MB.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateTemplateError } from "../src/config/testing/generate-template-error.js";

type Template = "pattern" | "hidden";
type Mistake = "type" | "field";

const here = (f: string): string => fileURLToPath(new URL(f, import.meta.url));
const LAUNCHER = here("../../bin/lookout.js");

function parseArgs(argv: readonly string[]): { hosts: number; templates: Template[]; mistakes: Mistake[] } {
  let hosts = 10_000;
  const templates: Template[] = [];
  const mistakes: Mistake[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[++i];
    if (a === "--hosts") hosts = Number(v);
    else if (a === "--template" && (v === "pattern" || v === "hidden")) templates.push(v);
    else if (a === "--mistake" && (v === "type" || v === "field")) mistakes.push(v);
    else throw new Error(`unknown argument ${a} ${v ?? ""}`);
  }
  if (templates.length === 0) templates.push("pattern", "hidden");
  if (mistakes.length === 0) mistakes.push("type", "field");
  return { hosts, templates, mistakes };
}

/** The kernel's figures of a live process: peak RSS in bytes, CPU in clock ticks (user + system). */
function procFigures(pid: number): { peak: number; ticks: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const peak = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { peak, ticks: Number(fields[11] ?? 0) + Number(fields[12] ?? 0) };
  } catch {
    return { peak: 0, ticks: 0 };
  }
}

interface Run {
  readonly ms: number;
  readonly cpuS: number;
  readonly peak: number;
  readonly code: number | null;
  readonly diagnostics: string[];
}

/** `lookout validate FILE` with the launcher's settings, in the environment of this bench. */
async function validate(file: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
  };
  const t0 = performance.now();
  const child = spawn(LAUNCHER, ["validate", file], { env, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  child.stdout.resume();
  let peak = 0;
  let ticks = 0;
  const poll = setInterval(() => {
    const f = procFigures(child.pid as number);
    peak = Math.max(peak, f.peak);
    ticks = Math.max(ticks, f.ticks);
  }, 10);
  const code = await new Promise<number | null>((r) => child.once("exit", r));
  const ms = performance.now() - t0;
  clearInterval(poll);
  const diagnostics = err.split("\n").filter((l) => /^[^:\s]+:\d+:\d+: /.test(l));
  return { ms, cpuS: ticks / 100, peak, code, diagnostics };
}

const args = parseArgs(process.argv.slice(2));
const dir = mkdtempSync(join(tmpdir(), "lookout-bench-template-"));
try {
  console.log(`lookout validate, one template mistake in ${args.hosts.toLocaleString("en-US")} hosts`);
  for (const template of args.templates) {
    for (const mistake of args.mistakes) {
      const file = join(dir, `fleet-${template}-${mistake}.cue`);
      const text = generateTemplateError({ hosts: args.hosts, template, mistake });
      writeFileSync(file, text);
      const load = loadavg()[0]?.toFixed(1);
      const r = await validate(file);
      console.log(
        `${template.padEnd(8)} ${mistake.padEnd(6)} ${(text.length / 1024).toFixed(0)} KiB: wall ${(r.ms / 1000).toFixed(2)} s, ` +
          `CPU ${r.cpuS.toFixed(2)} s, peak RSS ${(r.peak / 1048576).toFixed(0)} MiB, ` +
          `${r.diagnostics.length} diagnostic line${r.diagnostics.length === 1 ? "" : "s"} (exit ${r.code}), load ${load}`,
      );
      for (const d of r.diagnostics.slice(0, 3)) console.log(`    ${d.replace(dir, ".").slice(0, 300)}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
