import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadConfigInWorker } from "./load-in-worker.js";
import { loadConfig } from "./loader.js";
import { INVALID_CASES, VALID_DOCS } from "./loader-cases.js";
import { generateFleet } from "./testing/generate-fleet.js";
import { repoRoot } from "./testing/repo-root.js";
import type { ConfigProfile } from "./type-checks.js";

/** Every object, array and map reachable from `v` is frozen, and no map accepts set(). */
function assertDeepFrozen(v: unknown, path = "config", seen = new Set<unknown>()): void {
  if (v === null || typeof v !== "object" || seen.has(v)) return;
  seen.add(v);
  assert.ok(Object.isFrozen(v), `${path} is not frozen`);
  if (v instanceof Map) {
    assert.throws(() => (v as Map<unknown, unknown>).set("x", 1), TypeError, `${path} accepts set()`);
    for (const [k, x] of v) assertDeepFrozen(x, `${path}.${String(k)}`, seen);
  } else {
    for (const [k, x] of Object.entries(v)) assertDeepFrozen(x, `${path}.${k}`, seen);
  }
}

describe("loadConfigInWorker gives exactly what loadConfig gives", () => {
  const example = (f: string) => readFileSync(join(repoRoot(), f), "utf8");
  const invalid = INVALID_CASES.slice(0, 3).map((c) => ({
    name: `invalid: ${c.name}`,
    doc: c.doc.replace("»", ""),
    profile: c.profile,
  }));
  /** [name, document, profile, hosts+services per batch]. */
  const cases: [string, string, ConfigProfile | undefined, number | undefined][] = [
    ...VALID_DOCS.map((d): [string, string, undefined, undefined] => [d.name, d.doc, undefined, undefined]),
    ["examples/full.cue", example("examples/full.cue"), undefined, undefined],
    ["examples/lookout.cue under the demo profile", example("examples/lookout.cue"), "demo", undefined],
    ["a fleet in batches of 7", generateFleet({ services: 300, servicesPerHost: 6 }), undefined, 7],
    ["a fleet in one batch", generateFleet({ services: 300 }), undefined, 1_000_000],
    [
      "names that are JavaScript object words",
      `hosts: {
	"__proto__": {address: "a", check: {type: "tcp", address: "a:1"}, labels: {constructor: "x"}}
	constructor: {address: "b", check: {type: "tcp", address: "a:1"}, services: toString: check: {type: "tcp", address: "a:1"}}
}
`,
      undefined,
      1,
    ],
    ...invalid.map((c): [string, string, ConfigProfile | undefined, undefined] => [
      c.name,
      c.doc,
      c.profile,
      undefined,
    ]),
    ["not CUE at all", "hosts: {{{{", undefined, undefined],
  ];
  for (const [name, doc, profile, batchObjects] of cases) {
    it(name, async () => {
      const input = { file: "w.cue", text: doc, ...(profile === undefined ? {} : { profile }) };
      const want = loadConfig(input);
      const got = await loadConfigInWorker({
        ...input,
        ...(batchObjects === undefined ? {} : { batchObjects }),
      });
      assert.deepStrictEqual(got, want);
      if (got.ok) assertDeepFrozen(got.config);
    });
  }
});

describe("loadConfigInWorker when the worker cannot finish", () => {
  const doc = generateFleet({ services: 2000 });
  /** [name, input beyond file and text, what the rejection says]. */
  const cases: [string, { maxHeapMb?: number; signal?: AbortSignal }, RegExp][] = [
    ["past its heap limit", { maxHeapMb: 8 }, /memory/],
    ["aborted before it starts", { signal: AbortSignal.abort(new Error("stopping")) }, /^stopping$/],
    ["aborted while it evaluates", { signal: AbortSignal.timeout(50) }, /timeout|aborted/i],
  ];
  for (const [name, extra, want] of cases) {
    it(`${name}: rejects, and this thread lives on`, async () => {
      const started = performance.now();
      await assert.rejects(loadConfigInWorker({ file: "w.cue", text: doc, ...extra }), (e: Error) => {
        assert.match(e.message, want);
        return true;
      });
      assert.ok(performance.now() - started < 30_000);
    });
  }
});
