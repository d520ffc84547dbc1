/**
 * Fault case 6: CUE loader input. fast-check generated documents and mutations of examples/*.cue
 * go through the one loader (src/config/loader.ts, in-process for speed, as `lookout validate` and
 * the server call it): it never throws, never takes longer than 2 s, and answers either a valid
 * config or diagnostics that each carry a position (file:line:column). Quick mode 1,000 cases,
 * long mode 100,000 (FAULTS_CUE_CASES overrides).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import fc from "fast-check";
import { loadConfig } from "../../config/loader.js";
import { REPO_ROOT } from "../clients.js";
import { byMode, quantile, reportFigures } from "./harness.js";

const CASES = Number(process.env.FAULTS_CUE_CASES ?? byMode(1000, 100_000));
const SEED = Number(process.env.FAULTS_SEED ?? Date.now() % 1_000_000);
const LIMIT_MS = 2000;

const examples = readdirSync(join(REPO_ROOT, "examples"))
  .filter((f) => f.endsWith(".cue"))
  .map((f) => readFileSync(join(REPO_ROOT, "examples", f), "utf8"));

/** Characters that matter to CUE's lexer and parser, and some that do not belong at all. */
const CUE_CHARS = [..."{}[]()<>:,.|&*!?=#$@_/\\\"'`\n\t -+0123456789abcxyzEe\u0000\u00e9\u{1F600}\ud800"];
const piece = fc.oneof(
  fc.constantFrom(...CUE_CHARS),
  fc.constantFrom(
    "hosts",
    "services",
    "check",
    "type",
    '"tcp"',
    '"legacy"',
    "for",
    "in",
    "if",
    "let",
    "import",
    "package",
    "#Def",
    "...",
    "_|_",
    "null",
    "true",
    "=~",
    "!~",
    '"""',
    "#'",
    "\\(",
    "close(",
    "len(",
    "*",
    "1e999",
    "0x",
    '"address"',
    "_",
    "__",
    "@tag()",
  ),
  fc.string({ maxLength: 8 }),
);

/** A random CUE-shaped value, a few levels deep. */
const value: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(
      '"x"',
      "1",
      "2.5",
      "true",
      "null",
      "_",
      "int",
      "string",
      "*1 | 2",
      ">=0",
      '=~"^a"',
      "[...]",
    ),
    fc.string({ maxLength: 12 }).map((s) => JSON.stringify(s)),
    fc
      .array(
        fc.tuple(fc.constantFrom("a", "b", "hosts", "check", '"k"', "#D", "x?", "y!", "[string]"), tie("v")),
        {
          maxLength: 4,
        },
      )
      .map((fields) => `{${fields.map(([k, v]) => `${k}: ${v}`).join(", ")}}`),
    fc.array(tie("v"), { maxLength: 4 }).map((items) => `[${items.join(", ")}]`),
    fc.tuple(tie("v"), tie("v")).map(([a, b]) => `${a} | ${b}`),
    fc.tuple(tie("v"), tie("v")).map(([a, b]) => `${a} & ${b}`),
    tie("v").map((v) => `[for x in ${v} {x}]`),
  ),
})).v;

const document: fc.Arbitrary<string> = fc.oneof(
  // A generated document with the schema's top-level names.
  fc
    .array(fc.tuple(fc.constantFrom("hosts", "commands", "contacts", "views", "x", "#D", "let y ="), value), {
      maxLength: 6,
    })
    .map((fields) => fields.map(([k, v]) => (k.startsWith("let") ? `${k} ${v}` : `${k}: ${v}`)).join("\n")),
  // An example, mutated: pieces inserted, ranges deleted or repeated, cut short.
  fc
    .tuple(
      fc.nat(examples.length - 1),
      fc.array(
        fc.tuple(
          fc.constantFrom("insert", "delete", "repeat", "cut"),
          fc.nat(),
          fc.nat(64),
          fc.array(piece, { maxLength: 4 }),
        ),
        { minLength: 1, maxLength: 6 },
      ),
    )
    .map(([which, edits]) => {
      let text = examples[which] as string;
      for (const [kind, at, len, pieces] of edits) {
        const i = text.length === 0 ? 0 : at % text.length;
        switch (kind) {
          case "insert":
            text = text.slice(0, i) + pieces.join("") + text.slice(i);
            break;
          case "delete":
            text = text.slice(0, i) + text.slice(i + len);
            break;
          case "repeat":
            text = text.slice(0, i + len) + text.slice(i, i + len) + text.slice(i + len);
            break;
          case "cut":
            text = text.slice(0, i);
            break;
        }
      }
      return text;
    }),
  // Random tokens.
  fc.array(piece, { maxLength: 200 }).map((p) => p.join("")),
  // Deep nesting, long strings, long lists.
  fc.integer({ min: 1, max: 20_000 }).map((d) => `x: ${"{a: ".repeat(d)}1${"}".repeat(d)}`),
  fc.integer({ min: 1, max: 20_000 }).map((d) => `x: ${"[".repeat(d)}${"]".repeat(d)}`),
  fc.integer({ min: 1, max: 5000 }).map((d) => `x: ${"(".repeat(d)}1${")".repeat(d)}`),
  fc.integer({ min: 1, max: 2000 }).map((d) => `x: 1${" | 1".repeat(d)}`),
  fc.integer({ min: 1, max: 1 << 20 }).map((n) => `x: "${"y".repeat(n)}"`),
);

describe("fault: CUE loader input", () => {
  it(`answers ${CASES} generated documents with a config or positioned diagnostics (seed ${SEED})`, async (t) => {
    // Generated a thousand at a time (seed SEED + the chunk's first index): generated all at once,
    // 100,000 documents of up to 1 MiB each filled a 4 GB heap before the loader saw one.
    const CHUNK = 1_000;
    function* docs(): Generator<string> {
      for (let first = 0; first < CASES; first += CHUNK) {
        yield* fc.sample(document, { numRuns: Math.min(CHUNK, CASES - first), seed: SEED + first });
      }
    }
    const times: number[] = [];
    const bad: string[] = [];
    let valid = 0;
    const began = performance.now();
    let n = 0;
    for (const text of docs()) {
      // A config load is its own task in the server (SIGHUP, ApplyConfig) and in `lookout
      // validate`: V8 keeps every WeakRef target read during a task alive until the task ends, so
      // one synchronous loop over 100,000 loads kept every document's vertices (4 GB).
      if (++n % 100 === 0) await new Promise((r) => setImmediate(r));
      const start = performance.now();
      let outcome: string | undefined;
      try {
        const r = loadConfig({ file: "fault.cue", text });
        if (r.ok) valid++;
        else if (r.diagnostics.length === 0) outcome = "rejected without a diagnostic";
        else {
          for (const d of r.diagnostics) {
            if (
              !(
                d.file !== "" &&
                Number.isInteger(d.line) &&
                d.line >= 1 &&
                Number.isInteger(d.column) &&
                d.column >= 1
              )
            ) {
              outcome = `a diagnostic without a position: ${JSON.stringify(d)}`;
            }
          }
        }
      } catch (e) {
        outcome = `threw ${String(e).slice(0, 300)}`;
      }
      const ms = performance.now() - start;
      times.push(ms);
      if (ms > LIMIT_MS) outcome = `${outcome ?? "answered"} after ${Math.round(ms)} ms`;
      if (outcome !== undefined && bad.length < 10)
        bad.push(`${outcome}\n--- document (${text.length} chars):\n${text.slice(0, 400)}`);
    }
    assert.deepEqual(bad, [], "every document answers a config or positioned diagnostics, within 2 s");
    reportFigures(t, "cue-loader", {
      cases: CASES,
      seed: SEED,
      valid,
      p50Ms: Number(quantile(times, 0.5).toFixed(2)),
      p99Ms: Number(quantile(times, 0.99).toFixed(1)),
      maxMs: Math.round(Math.max(...times)),
      casesPerSecond: Math.round(CASES / ((performance.now() - began) / 1000)),
    });
  });
});
