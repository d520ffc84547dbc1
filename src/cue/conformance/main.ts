/**
 * Conformance runner entry point:
 *   node dist/src/cue/conformance/main.js [corpusDir] [--verbose] [--filter X] [--list-failures]
 *        [--markdown] [--max-steps N] [--timeout SECONDS] [--slowest N] [--reasons] [--strict-pos]
 *        [--silent-ceiling FILE]
 * Prints `dir: P passed / F failed / U unsupported / W silently wrong` per directory (silently wrong
 * failures are counted in failed too, see `silent.ts`), the silent total, and, last, `N passed, N
 * failed, N skipped` (skipped = unsupported). Exits 0: it reports, it does not gate, except on
 * the one number that must only go down: with `--silent-ceiling FILE` (CI passes
 * `.ci/cue-silent-ceiling`), it exits 1 when the silently wrong total is above the number FILE
 * holds, or when it cannot tell (FILE unreadable, the run failed). See `silent-gate.ts`.
 */

import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadEngine } from "./engine.js";
import { runCorpusIsolated } from "./isolated.js";
import { type ArchiveResult, totalsByDir } from "./runner.js";
import { readSilentCeiling, silentVerdict } from "./silent-gate.js";

/** Directories whose failures the markdown report lists one by one. */
const targetDirs = [
  "definitions",
  "disjunctions",
  "resolve",
  "references",
  "interpolation",
  "scalars",
  "lists",
  "choosedefault",
  "basicrewrite",
  "builtins",
  "comprehensions",
  "export",
];

interface Args {
  corpus: string;
  verbose: boolean;
  listFailures: boolean;
  markdown: boolean;
  filter?: string;
  maxSteps: number;
  /** Also compare `pos=` of `@test(err)`. */
  strictPos: boolean;
  /** Per-archive wall-clock budget. */
  timeoutMs: number;
  /** Print the N slowest archives (stderr). */
  slowest: number;
  /** Print a histogram of unsupported reasons (stderr). */
  reasons: boolean;
  /** A file holding the most silently wrong answers allowed (exit 1 above it). */
  silentCeiling?: string;
}

function parseArgs(argv: readonly string[]): Args | string {
  // dist/src/cue/conformance/main.js → repo root is four levels up.
  const here = dirname(fileURLToPath(import.meta.url));
  const repoRoot = resolve(here, "../../../..");
  const a: Args = {
    corpus: resolve(repoRoot, "../shared/cue-conformance"),
    verbose: false,
    listFailures: false,
    markdown: false,
    maxSteps: 2_000_000,
    slowest: 0,
    reasons: false,
    timeoutMs: 5000,
    strictPos: false,
  };
  // The worktrees live one level deeper than the main checkout; fall back to the shared corpus.
  if (!existsSync(a.corpus) && existsSync("/work/shared/cue-conformance"))
    a.corpus = "/work/shared/cue-conformance";
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i] ?? "";
    switch (x) {
      case "--verbose":
        a.verbose = true;
        break;
      case "--list-failures":
        a.listFailures = true;
        break;
      case "--markdown":
        a.markdown = true;
        break;
      case "--filter":
        a.filter = argv[++i];
        break;
      case "--slowest":
        a.slowest = Number(argv[++i]);
        break;
      case "--strict-pos":
        a.strictPos = true;
        break;
      case "--timeout":
        a.timeoutMs = Number(argv[++i]) * 1000;
        break;
      case "--reasons":
        a.reasons = true;
        break;
      case "--max-steps":
        a.maxSteps = Number(argv[++i]);
        break;
      case "--silent-ceiling": {
        const file = argv[++i];
        if (file === undefined) return "--silent-ceiling needs a FILE";
        a.silentCeiling = resolve(file);
        break;
      }
      default:
        if (x.startsWith("--")) return `unknown flag ${x}`;
        a.corpus = resolve(x);
    }
  }
  return a;
}

/** The exit code: 0, or 1 when a `--silent-ceiling` was given and is exceeded or cannot be checked. */
async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === "string") {
    console.error(args);
    return gating ? 1 : 0;
  }
  // Read first: a gate that cannot be checked fails before the corpus is run.
  const ceiling = args.silentCeiling === undefined ? undefined : readSilentCeiling(args.silentCeiling);
  if (typeof ceiling === "string") {
    console.error(ceiling);
    return 1;
  }
  if (!existsSync(args.corpus)) {
    console.error(`corpus not found: ${args.corpus}`);
    return ceiling === undefined ? 0 : 1;
  }
  const engine = await loadEngine();
  if (typeof engine === "string") {
    console.error(engine);
    // Without the engine nothing is silent, and nothing is checked either.
    if (ceiling !== undefined) return 1;
  }
  const start = performance.now();
  const results = await runCorpusIsolated(args.corpus, {
    filter: args.filter,
    engineOptions: { maxSteps: args.maxSteps },
    check: { strictPos: args.strictPos },
    timeoutMs: args.timeoutMs,
  });
  const ms = performance.now() - start;
  if (args.markdown) {
    // The same corpus with positions compared too (`--strict-pos`), tracked as one line.
    const strict = args.strictPos
      ? results
      : await runCorpusIsolated(args.corpus, {
          filter: args.filter,
          engineOptions: { maxSteps: args.maxSteps },
          check: { strictPos: true },
          timeoutMs: args.timeoutMs,
        });
    process.stdout.write(markdown(results, ms, strict));
    return 0;
  }
  if (args.verbose || args.listFailures) {
    for (const r of results) {
      for (const c of r.cases) {
        if (args.verbose || c.status === "failed") {
          const status = c.silent === true ? "SILENT" : c.status.toUpperCase();
          console.log(`${status} ${c.name}${c.reason ? `: ${c.reason}` : ""}`);
        }
      }
    }
  }
  // Diagnostics first, on stdout too, so the summary is reliably the last line of the output.
  console.log(`(${results.length} archives in ${(ms / 1000).toFixed(1)} s)`);
  if (args.slowest > 0) {
    for (const r of [...results].sort((x, y) => y.ms - x.ms).slice(0, args.slowest)) {
      console.log(`slow: ${r.archive} ${r.ms.toFixed(0)} ms`);
    }
  }
  if (args.reasons) {
    const hist = new Map<string, number>();
    for (const r of results) {
      for (const c of r.cases) {
        if (c.status !== "unsupported") continue;
        const key = (c.reason ?? "")
          .replace(/\s+/g, " ")
          .replace(/^[^:]*: /, "")
          .replace(/[("].*$/, "")
          .slice(0, 60);
        hist.set(key, (hist.get(key) ?? 0) + 1);
      }
    }
    for (const [k, n] of [...hist].sort((x, y) => y[1] - x[1]).slice(0, 30))
      console.log(`${String(n).padStart(5)} ${k}`);
  }
  let p = 0;
  let f = 0;
  let u = 0;
  let w = 0;
  for (const [dir, t] of totalsByDir(results)) {
    console.log(
      `${dir}: ${t.passed} passed / ${t.failed} failed / ${t.unsupported} unsupported / ${t.silent} silently wrong`,
    );
    p += t.passed;
    f += t.failed;
    u += t.unsupported;
    w += t.silent;
  }
  console.log(targetSummary(results));
  console.log(`Silently wrong (a value where CUE errors, or a different value, with no error): ${w}`);
  console.log(`${p} passed, ${f} failed, ${u} skipped`);
  if (ceiling === undefined) return 0;
  const verdict = silentVerdict(w, ceiling, args.silentCeiling as string);
  (verdict.ok ? console.log : console.error)(verdict.message);
  return verdict.ok ? 0 : 1;
}

/** The share of assertions passed in the target directories (unsupported ones count against it). */
function targetSummary(results: readonly ArchiveResult[]): string {
  let p = 0;
  let n = 0;
  for (const [dir, t] of totalsByDir(results)) {
    if (!targetDirs.includes(dir.split("/")[0] ?? "")) continue;
    p += t.passed;
    n += t.passed + t.failed + t.unsupported;
  }
  const pct = n === 0 ? 0 : (100 * p) / n;
  return `Target directories (${targetDirs.join(", ")}): ${p} of ${n} assertions passed (${pct.toFixed(1)} %).`;
}

function markdown(results: readonly ArchiveResult[], ms: number, strict: readonly ArchiveResult[]): string {
  const lines: string[] = [
    "# CUE conformance",
    "",
    "Results of the engine on cue's own evaluator tests (`cue/testdata` of cue-lang/cue, copied to",
    "`/work/shared/cue-conformance`), as counted by `src/cue/conformance/` (see `docs/cue.md` for what is",
    "checked and what counts as unsupported). Generated by",
    "`node dist/src/cue/conformance/main.js --markdown`; do not edit by hand.",
    "",
  ];
  const rows: string[][] = [];
  let p = 0;
  let f = 0;
  let u = 0;
  let w = 0;
  for (const [dir, t] of totalsByDir(results)) {
    rows.push([dir, String(t.passed), String(t.failed), String(t.unsupported), String(t.silent)]);
    p += t.passed;
    f += t.failed;
    u += t.unsupported;
    w += t.silent;
  }
  rows.push(["**total**", String(p), String(f), String(u), String(w)]);
  lines.push(
    ...table(["directory", "passed", "failed", "unsupported", "silently wrong"], rows),
    "",
    "*Silently wrong* counts the failures (included in *failed*) where the engine reported no error on",
    "the asserted path: a value where CUE errors, or a different value, with no error. It must be 0.",
    "",
    `${targetSummary(results)} Run time: ${(ms / 1000).toFixed(1)} s.`,
    "",
    strictSummary(strict),
    "",
    "Every failure in the target directories follows, with its reason.",
    "",
  );
  for (const dir of targetDirs) {
    const failures = results
      .filter((r) => r.dir === dir)
      .flatMap((r) => r.cases.filter((c) => c.status === "failed"));
    lines.push(`## ${dir}: ${failures.length} failures`, "");
    for (const c of failures) {
      // Reasons quote CUE (`*1 | 2`): keep them in code spans so markdown leaves them alone.
      const reason = (c.reason ?? "").replace(/\s+/g, " ").replace(/`/g, "'").slice(0, 300).trim();
      lines.push(`- ${c.silent === true ? "**silent** " : ""}\`${c.name}\`: \`${reason}\``);
    }
    if (failures.length > 0) lines.push("");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

// The runner reports; only a `--silent-ceiling` gates (then a crash fails too). Exit once stdout
// is flushed: the report may go to a pipe, whose writes are asynchronous on Linux.
const gating = process.argv.includes("--silent-ceiling");
const exitFlushed = (code: number): void => {
  process.stdout.write("", () => process.exit(code));
};
main().then(exitFlushed, (e: unknown) => {
  console.error(e);
  exitFlushed(gating ? 1 : 0);
});

/** One sentence on the `--strict-pos` run: totals, and how many failures are only positions. */
function strictSummary(results: readonly ArchiveResult[]): string {
  let p = 0;
  let f = 0;
  let pos = 0;
  for (const r of results) {
    for (const c of r.cases) {
      if (c.status === "passed") p++;
      if (c.status !== "failed") continue;
      f++;
      if (c.reason?.startsWith("positions:")) pos++;
    }
  }
  return `With \`--strict-pos\` (the \`pos=\` positions of \`@test(err)\` compared too): ${p} passed, ${f} failed, of which ${pos} only on positions.`;
}

/** A markdown table aligned the way the formatter (Biome) writes it: text left, numbers right. */
function table(header: readonly string[], rows: readonly string[][]): string[] {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? "").length)));
  const cell = (x: string, c: number): string =>
    c === 0 ? x.padEnd(widths[c] ?? 0) : x.padStart(widths[c] ?? 0);
  const line = (r: readonly string[]): string => `| ${r.map((x, c) => cell(x, c)).join(" | ")} |`;
  const rule = `| ${widths.map((w, c) => (c === 0 ? "-".repeat(w) : `${"-".repeat(w - 1)}:`)).join(" | ")} |`;
  return [line(header.map((h, c) => (c === 0 ? h : h.padEnd(widths[c] ?? 0)))), rule, ...rows.map(line)];
}
