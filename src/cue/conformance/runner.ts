/**
 * Runs a corpus of txtar archives (cue's `cue/testdata` layout) against the engine and counts, per
 * directory, the assertions that passed, failed, or could not be checked (unsupported). It never
 * throws on a case: an engine exception fails that archive's cases.
 */

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseFile } from "../syntax/parser.js";
import type { Engine, EngineOptions } from "./engine.js";
import {
  compareDebug,
  compareErrorListing,
  type GoldenOutcome,
  parseDebug,
  parseErrorListing,
} from "./golden.js";
import {
  assertions,
  type CaseResult,
  type CheckOptions,
  checkDirectives,
  collectDirectives,
  type Directive,
  hasInlineTests,
} from "./inline.js";
import { engineErrsAt } from "./silent.js";
import { parseTxtar } from "./txtar.js";
import { countWrittenAssertions } from "./written.js";

/** Results of one archive. */
export interface ArchiveResult {
  /** Path relative to the corpus root, e.g. `definitions/issue123.txtar`. */
  readonly archive: string;
  readonly dir: string;
  readonly cases: readonly CaseResult[];
  readonly ms: number;
}

/** Lists `.txtar` files under a directory, sorted. */
export function listArchives(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (e.endsWith(".txtar")) out.push(p);
    }
  };
  walk(root);
  return out;
}

const stdlibRoots = new Set([
  "crypto",
  "encoding",
  "html",
  "list",
  "math",
  "net",
  "path",
  "regexp",
  "strconv",
  "strings",
  "struct",
  "text",
  "time",
  "tool",
  "uuid",
]);

/** Runs one archive given its text. */
export function runArchive(
  engine: Engine | string,
  text: string,
  archive: string,
  engineOptions: EngineOptions,
  check: CheckOptions = {},
): CaseResult[] {
  const ar = parseTxtar(text);
  // As cue's loader, `*_test.cue` files are not part of the package.
  const files = ar.files
    .filter(
      (f) =>
        f.name.endsWith(".cue") &&
        !f.name.endsWith("_test.cue") &&
        !f.name.startsWith("out/") &&
        !f.name.includes("/"),
    )
    .map((f) => ({ name: f.name, text: f.data }));
  const prefix = `${archive}: `;
  if (files.length === 0)
    return [{ name: archive, status: "unsupported", reason: "no top-level .cue files" }];
  const parsed = files.map((f) => ({ f, r: parseFile(f.name, f.text) }));
  const inline = hasInlineTests(files);
  const directives: Directive[] = [];
  if (inline) for (const { f, r } of parsed) directives.push(...collectDirectives(r.node, f.text));
  const unsupportedAll = (reason: string): CaseResult[] =>
    inline
      ? assertions(directives, prefix).map(({ name }) => ({ name, status: "unsupported", reason }))
      : [{ name: archive, status: "unsupported", reason }];

  // Non-standard imports need a module loader the engine does not have.
  for (const { r } of parsed) {
    for (const imp of r.node.imports) {
      const first = imp.path.split("/")[0] ?? "";
      if (!stdlibRoots.has(first)) return unsupportedAll(`imports non-standard package ${imp.path}`);
    }
  }
  // Experiments the parser does not know show up as syntax errors. The assertions of a file that
  // does not parse are counted from its text: a parse that stops early would lose them.
  for (const { f, r } of parsed) {
    const exp = /@experiment\(([^)]*)\)/.exec(f.text);
    if (exp === null || r.errors.length === 0) continue;
    const reason = `experiment ${exp[1]}`;
    if (!inline) return unsupportedAll(reason);
    const unreadable = new Set(parsed.filter((x) => x.r.errors.length > 0).map((x) => x.f.name));
    const out: CaseResult[] = assertions(
      directives.filter((d) => !unreadable.has(d.file)),
      prefix,
    ).map(({ name }) => ({ name, status: "unsupported", reason }));
    for (const x of parsed) {
      if (!unreadable.has(x.f.name)) continue;
      const n = countWrittenAssertions(x.f.text);
      for (let k = 1; k <= n; k++) {
        out.push({ name: `${prefix}${x.f.name} assertion ${k}`, status: "unsupported", reason });
      }
    }
    return out;
  }
  if (typeof engine === "string") return unsupportedAll(engine).map((c) => ({ ...c, status: "failed" }));

  let root: ReturnType<Engine["compile"]>;
  try {
    root = engine.compile(files, engineOptions);
  } catch (e) {
    const reason = `engine threw: ${(e as Error)?.message}`;
    return unsupportedAll(reason).map((c) => ({ ...c, status: "failed", reason }));
  }
  if (inline) {
    if (directives.length === 0) return [{ name: archive, status: "unsupported", reason: "no assertions" }];
    return checkDirectives(engine, root, directives, prefix, files, engineOptions, check);
  }
  const golden =
    ar.files.find((f) => f.name === "out/evalalpha") ?? ar.files.find((f) => f.name === "out/eval");
  if (golden === undefined)
    return [{ name: archive, status: "unsupported", reason: "no out/evalalpha or out/eval" }];
  let outcome: GoldenOutcome;
  // `Errors: … Result: <tree>`: the tree carries the errors as leaves.
  const resultAt = golden.data.startsWith("Errors:") ? golden.data.indexOf("\nResult:\n") : -1;
  const goldenText = resultAt >= 0 ? golden.data.slice(resultAt + "\nResult:\n".length) : golden.data;
  const unsupported = root.errors.find((e) => e.code === "unsupported");
  if (unsupported !== undefined) {
    return [
      {
        name: `${archive} (${golden.name})`,
        status: "unsupported",
        reason: `engine: ${unsupported.message}`,
      },
    ];
  }
  try {
    const tree = parseDebug(goldenText);
    if (tree !== undefined) outcome = compareDebug(engine, root, tree);
    else {
      const listing = resultAt >= 0 ? undefined : parseErrorListing(goldenText);
      outcome =
        listing === undefined
          ? { status: "unsupported", reason: "unrecognized golden format" }
          : compareErrorListing(root, listing);
    }
  } catch (e) {
    outcome = { status: "failed", reason: `engine threw: ${(e as Error)?.message}` };
  }
  const name = `${archive} (${golden.name})`;
  if (outcome.status === "passed") return [{ name, status: "passed" }];
  const silent =
    outcome.status === "failed" && outcome.at !== undefined && !engineErrsAt(root, outcome.at, engine);
  return [
    { name, status: outcome.status, reason: outcome.reason, ...(silent ? { silent: true as const } : {}) },
  ];
}

/** Per-directory totals. */
export interface Totals {
  passed: number;
  failed: number;
  unsupported: number;
  /** Failures that are silent wrong answers (counted in `failed` too). */
  silent: number;
}

export function totalsByDir(results: readonly ArchiveResult[]): Map<string, Totals> {
  const m = new Map<string, Totals>();
  for (const r of results) {
    const t = m.get(r.dir) ?? { passed: 0, failed: 0, unsupported: 0, silent: 0 };
    for (const c of r.cases) {
      t[c.status]++;
      if (c.status === "failed" && c.silent === true) t.silent++;
    }
    m.set(r.dir, t);
  }
  return m;
}
