import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Meter } from "../cue/index.js";
import {
  BASE_HEAP_MB,
  BASE_STEPS,
  BASE_VERTICES,
  type EvalBudget,
  evalBudget,
  STEPS_PER_BYTE,
  VERTICES_PER_BYTE,
} from "./eval-budget.js";
import { loadConfig } from "./loader.js";
import { generateFleet } from "./testing/generate-fleet.js";

/** `_a0: 1`, `_aN: [_a(N-1), _a(N-1)]` up to n, and `tail` that uses `_a<n>` (or `#a`, `A` forms). */
function doubling(n: number, form: "list" | "def" | "let", tail: (last: string) => string): string {
  const name = (i: number) => (form === "def" ? `#a${i}` : form === "let" ? `A${i}` : `_a${i}`);
  const decl = (i: number, v: string) => (form === "let" ? `let ${name(i)} = ${v}` : `${name(i)}: ${v}`);
  const lines = [decl(0, form === "def" ? "{v: 1}" : "1")];
  for (let i = 1; i <= n; i++) {
    const v = form === "def" ? `{l: ${name(i - 1)}, r: ${name(i - 1)}}` : `[${name(i - 1)}, ${name(i - 1)}]`;
    lines.push(decl(i, v));
  }
  lines.push(tail(name(n)));
  return `${lines.join("\n")}\n`;
}

/** `_d0: "a" | "b"`, `_dN: {l: _d(N-1), r: _d(N-1)} | {l: _d(N-1), s: _d(N-1)}`: 2^(2^N) values. */
function disjunctions(n: number): string {
  const lines = ['_d0: "a" | "b"'];
  for (let i = 1; i <= n; i++) {
    const d = `_d${i - 1}`;
    lines.push(`_d${i}: {l: ${d}, r: ${d}} | {l: ${d}, s: ${d}}`);
  }
  lines.push(
    `hosts: web: {address: "127.0.0.1", check: {type: "passive", freshness_threshold: "1m"}, vars: {X: _d${n}}}`,
  );
  return `${lines.join("\n")}\n`;
}

describe("evalBudget scales with the document", () => {
  // The 1,000,000-service fleet of generate-fleet.ts is 115,615,818 bytes; evaluating it takes
  // about 0.7 steps and 0.07 values per byte (see docs/configuration.md for the measurement).
  const cases: { bytes: number; want: EvalBudget }[] = [
    { bytes: 0, want: { maxSteps: BASE_STEPS, maxVertices: BASE_VERTICES, heapMb: BASE_HEAP_MB } },
    { bytes: 1000, want: { maxSteps: 1_032_000, maxVertices: 254_000, heapMb: 513 } },
    { bytes: 1 << 20, want: { maxSteps: 34_554_432, maxVertices: 4_444_304, heapMb: 576 } },
    {
      bytes: 115_615_818,
      want: { maxSteps: 3_700_706_176, maxVertices: 462_713_272, heapMb: 7569 },
    },
  ];
  for (const c of cases) {
    it(`${c.bytes} bytes`, () => assert.deepEqual(evalBudget(c.bytes), c.want));
  }
  it("grows by the per-byte rates, so no fixed number refuses a large plain fleet", () => {
    const a = evalBudget(10_000_000);
    const b = evalBudget(20_000_000);
    assert.equal(b.maxSteps - a.maxSteps, STEPS_PER_BYTE * 10_000_000);
    assert.equal(b.maxVertices - a.maxVertices, VERTICES_PER_BYTE * 10_000_000);
    // The 1M-service fleet needs about 75M steps: well inside, where 20M was not.
    assert.ok(evalBudget(115_615_818).maxSteps > 20_000_000 * 10);
  });
  it("a 50,000-service plain fleet needs more than the base and loads within its budget", () => {
    const text = generateFleet({ services: 50_000 });
    const budget = evalBudget(Buffer.byteLength(text));
    let spent: Meter = { steps: 0, vertices: 0 };
    const r = loadConfig({ file: "fleet.cue", text, onSpent: (m) => (spent = { ...m }) });
    assert.equal(r.ok, true, r.ok ? "" : r.diagnostics[0]?.message);
    // Only the size-scaled part admits it: the base alone is spent.
    assert.ok(spent.steps > BASE_STEPS, `steps ${spent.steps}`);
    assert.ok(spent.steps <= budget.maxSteps && spent.vertices <= budget.maxVertices);
  });
});

describe("a document whose values multiply is refused within its budget", () => {
  // Each of these takes 2^40 steps or values unbounded (minutes and gigabytes): the first the
  // issue's report, the others the same through definitions (shared, so only export multiplies)
  // and let clauses, and inside a field the schema checks.
  const cases: { name: string; text: string }[] = [
    { name: "hidden lists, exported", text: doubling(40, "list", (l) => `x: ${l}`) },
    {
      name: "hidden lists, in a host's vars",
      text: doubling(40, "list", (l) => `hosts: web: {address: "127.0.0.1", vars: {x: ${l}}}`),
    },
    {
      name: "definitions (shared structs)",
      text: doubling(
        40,
        "def",
        (l) => `hosts: web: {address: "127.0.0.1", check: {type: "passive"}, vars: {X: ${l}}}`,
      ),
    },
    { name: "let clauses", text: doubling(40, "let", (l) => `x: ${l}`) },
    { name: "disjunctions of structs of disjunctions", text: disjunctions(16) },
  ];
  for (const c of cases) {
    it(c.name, { timeout: 120_000 }, () => {
      let spent: Meter | undefined;
      const r = loadConfig({ file: "h.cue", text: c.text, onSpent: (m) => (spent = { ...m }) });
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.diagnostics.length, 1, JSON.stringify(r.diagnostics));
      const d = r.diagnostics[0];
      assert.match(
        d?.message ?? "",
        /^evaluation budget exceeded: the document \(\d+ bytes\) needs more than/,
      );
      assert.deepEqual([d?.file, d?.line, d?.column], ["h.cue", 1, 1]);
      // The whole load (every pass, the diagnostics' too) stayed within about one budget.
      const b = evalBudget(Buffer.byteLength(c.text));
      assert.ok(spent !== undefined);
      assert.ok(spent.steps <= b.maxSteps + 1_000, `steps ${spent.steps} > ${b.maxSteps}`);
      assert.ok(spent.vertices <= b.maxVertices + 1_000, `values ${spent.vertices} > ${b.maxVertices}`);
    });
  }
});

describe("a value past what JavaScript can hold is named as such", () => {
  it("a string doubled forty times", () => {
    const lines = ['_s0: "ab"'];
    for (let i = 1; i <= 40; i++) lines.push(`_s${i}: _s${i - 1} + _s${i - 1}`);
    lines.push('hosts: web: {address: _s40, check: {type: "passive", freshness_threshold: "1m"}}');
    const r = loadConfig({ file: "s.cue", text: `${lines.join("\n")}\n` });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.diagnostics.length, 1, JSON.stringify(r.diagnostics));
    // Not "evaluation too deep (stack exhausted)": nothing was deep.
    assert.match(
      r.diagnostics[0]?.message ?? "",
      /evaluation made a value too large to hold \(Invalid string length\)/,
    );
  });
});
