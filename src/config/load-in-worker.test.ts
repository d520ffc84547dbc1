import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { loadConfigInWorker, type WorkerLoadResult } from "./load-in-worker.js";
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

describe("loadConfigInWorker reading the file itself", () => {
  const dir = mkdtempSync(join(tmpdir(), "lookout-load-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const fleet = generateFleet({ services: 300 });
  /** [name, the file's text (undefined: no such file), what the result is]. */
  const cases: [string, string | undefined, (file: string) => WorkerLoadResult][] = [
    [
      "a valid document: loadConfig's Config, and the digest of its text",
      fleet,
      (file) => {
        const r = loadConfig({ file, text: fleet });
        assert.ok(r.ok);
        return { ...r, digest: createHash("sha256").update(fleet).digest("hex") };
      },
    ],
    [
      "text beyond ASCII: the digest is of its UTF-8",
      `// ünï-€\n${fleet}`,
      (file) => {
        const text = `// ünï-€\n${fleet}`;
        const r = loadConfig({ file, text });
        assert.ok(r.ok);
        return { ...r, digest: createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex") };
      },
    ],
    [
      "a rejected document: loadConfig's diagnostics",
      "hosts: {{{{",
      (file) => loadConfig({ file, text: "hosts: {{{{" }) as WorkerLoadResult,
    ],
    [
      "no such file: one diagnostic that says why",
      undefined,
      (file) => ({
        ok: false,
        diagnostics: [
          {
            message: `cannot read: ENOENT: no such file or directory, open '${file}'`,
            file,
            line: 0,
            column: 0,
          },
        ],
      }),
    ],
  ];
  cases.forEach(([name, text, want], i) => {
    it(name, async () => {
      const file = join(dir, `c${i}.cue`);
      if (text !== undefined) writeFileSync(file, text);
      assert.deepStrictEqual(await loadConfigInWorker({ file, digest: true }), want(file));
    });
  });
});

describe("loadConfigInWorker when the worker cannot finish", () => {
  const doc = generateFleet({ services: 2000 });
  /** [name, input beyond file and text, what the rejection says]. */
  const cases: [string, { signal?: AbortSignal }, RegExp][] = [
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
  it("past its heap limit: the document is rejected with one diagnostic, and this thread lives on", async () => {
    const r = await loadConfigInWorker({ file: "w.cue", text: doc, maxHeapMb: 8 });
    assert.deepEqual(r, {
      ok: false,
      diagnostics: [
        {
          message:
            "evaluation budget exceeded: evaluating the document needs more than 8 MB " +
            "(the heap limit for its size, docs/configuration.md)",
          file: "w.cue",
          line: 1,
          column: 1,
        },
      ],
    });
  });
});
