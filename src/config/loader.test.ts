import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { Config } from "../model/config.js";
import { formatDiagnostic } from "./diagnostic.js";
import { loadConfig } from "./loader.js";
import { INVALID_CASES, VALID_DOCS } from "./loader-cases.js";
import { repoRoot } from "./testing/repo-root.js";

/** Strips the `»` marker and returns the text and the marker's 1-based line and column. */
function marked(doc: string): { text: string; line: number; column: number } {
  const i = doc.indexOf("»");
  assert.ok(i >= 0 && doc.indexOf("»", i + 1) < 0, "a case has exactly one » marker");
  const before = doc.slice(0, i);
  const line = before.split("\n").length;
  const column = i - before.lastIndexOf("\n");
  return { text: before + doc.slice(i + 1), line, column };
}

describe("loadConfig rejects, one diagnostic per problem, at the user's position", () => {
  for (const c of INVALID_CASES) {
    it(c.name, () => {
      const { text, line, column } = marked(c.doc);
      const r = loadConfig({ file: "case.cue", text, ...(c.profile ? { profile: c.profile } : {}) });
      assert.equal(r.ok, false, "document was accepted");
      if (r.ok) return;
      const shown = r.diagnostics.map(formatDiagnostic).join("\n");
      assert.equal(r.diagnostics.length, 1, `want one diagnostic, got:\n${shown}`);
      const d = r.diagnostics[0];
      assert.ok(d);
      assert.ok(d.message.includes(c.message), `message lacks ${JSON.stringify(c.message)}:\n${shown}`);
      if (c.notMessage !== undefined) {
        assert.ok(
          !d.message.includes(c.notMessage),
          `message has ${JSON.stringify(c.notMessage)}:\n${shown}`,
        );
      }
      assert.deepEqual([d.file, d.line, d.column], ["case.cue", line, column], shown);
    });
  }
});

describe("loadConfig reports every problem of a document in one run", () => {
  /** [name, document, [line:column, message substring][] in the order reported]. */
  const cases: [string, string, [string, string][]][] = [
    [
      "schema problems everywhere",
      `hostz: {}
resources: PASSWORD: "x"
hosts: {
	web1: {
		address: "10.0.0.1"
		check: {type: "htp", url: "http://10.0.0.1/"}
		services: load: check: {type: "tcp", address: "10.0.0.1:22", max_attempts: 0}
	}
	db1: {
		check: {type: "tcp", address: "10.0.0.2:5432"}
		labels: Env: "prod"
	}
}
`,
      [
        ["1:1", `hostz: unknown top-level field "hostz"`],
        ["2:12", `resources.PASSWORD: resources key "PASSWORD" must have the form USER<digits>`],
        ["6:17", `hosts.web1.check.type: unknown check type "htp"`],
        ["7:78", "hosts.web1.services.load.check.max_attempts: invalid value 0; want an int >= 1"],
        ["9:2", `hosts.db1.address: missing required field "address"`],
        ["11:11", `hosts.db1.labels.Env: label key "Env" must match`],
      ],
    ],
    [
      "a document that is not concrete on its own",
      `hosts: web1: {address: string, check: {type: "htp"}}
hosts: web2: {address: "b", check: {type: "tcp", address: "b"}}
`,
      [
        ["1:24", "hosts.web1.address: incomplete value"],
        ["1:46", `hosts.web1.check.type: unknown check type "htp"`],
        ["2:59", `hosts.web2.check.address: invalid value "b"; want a non-empty "host:port"`],
      ],
    ],
    [
      "a user definition and the schema each refusing a field of the same struct",
      `#Check: {type: "tcp", address: string, port: int, retry_interval?: _, timeout?: _, max_attempts?: _, flap?: _}
hosts: web1: {address: "a", check: #Check & {address: "10.0.0.1:80", port: 80, check_interval: "1m"}}
`,
      [
        // The schema's #TcpCheck refuses port, which #Check declares: not #Check's doing.
        ["1:40", `hosts.web1.check.port: unknown field "port"; allowed fields: type, `],
        [
          "2:80",
          `hosts.web1.check.check_interval: field not allowed: the struct is closed by definition #Check (many.cue:1:1), which does not declare "check_interval"`,
        ],
      ],
    ],
  ];
  for (const [name, doc, want] of cases) {
    it(name, () => {
      const r = loadConfig({ file: "many.cue", text: doc });
      assert.equal(r.ok, false);
      if (r.ok) return;
      const got = r.diagnostics.map((d) => [`${d.line}:${d.column}`, d.message]);
      assert.equal(got.length, want.length, r.diagnostics.map(formatDiagnostic).join("\n"));
      for (const [i, [pos, msg]] of want.entries()) {
        assert.equal(got[i]?.[0], pos, String(got[i]?.[1]));
        assert.ok(got[i]?.[1]?.includes(msg), `${got[i]?.[1]} lacks ${msg}`);
      }
    });
  }
});

describe("loadConfig accepts", () => {
  for (const c of VALID_DOCS) {
    it(c.name, () => {
      const r = loadConfig({ file: "ok.cue", text: c.doc });
      assert.ok(r.ok, r.ok ? "" : r.diagnostics.map(formatDiagnostic).join("\n"));
    });
  }
  it("the demo profile accepts a document without process- or file-bound parts", () => {
    const doc = VALID_DOCS.find((d) => d.name === "one tcp host")?.doc ?? "";
    assert.ok(loadConfig({ file: "ok.cue", text: doc, profile: "demo" }).ok);
  });
});

describe("loadConfig decodes what CUE computed", () => {
  it("takes defaults from the schema and values from CUE expressions", () => {
    const doc = VALID_DOCS.find((d) => d.name.startsWith("CUE features"))?.doc ?? "";
    const r = loadConfig({ file: "ok.cue", text: doc });
    assert.ok(r.ok, r.ok ? "" : r.diagnostics.map(formatDiagnostic).join("\n"));
    assert.deepEqual([...r.config.hosts.keys()], ["web1", "web2", "web3"]);
    const web2 = r.config.hosts.get("web2");
    assert.equal(web2?.check.type, "tcp");
    assert.equal(web2?.check.type === "tcp" ? web2.check.address : "", "10.0.0.2:80");
    assert.deepEqual(web2?.labels, { tier: "web" });
    assert.equal(web2?.zone, "default");
    assert.equal(web2?.check.checkIntervalMs, 60_000);
    assert.equal(web2?.check.flap.lowThreshold, 0.15);
    assert.ok(r.config.notifications.has("oncall"));
  });
});

describe("loadConfig keeps names that are also JavaScript object words", () => {
  it("__proto__, constructor and toString are ordinary names", () => {
    const tcp = `check: {type: "tcp", address: "a:1"}`;
    const r = loadConfig({
      file: "names.cue",
      text: `hosts: {
	"__proto__": {address: "a", ${tcp}, labels: {constructor: "x"}}
	constructor: {address: "b", ${tcp}, parents: ["__proto__"], services: toString: ${tcp}}
}
`,
    });
    assert.ok(r.ok, r.ok ? "" : r.diagnostics.map(formatDiagnostic).join("\n"));
    assert.deepEqual([...r.config.hosts.keys()].sort(), ["__proto__", "constructor"]);
    assert.deepEqual(r.config.hosts.get("__proto__")?.labels, { constructor: "x" });
    assert.deepEqual([...(r.config.hosts.get("constructor")?.services.keys() ?? [])], ["toString"]);
  });
});

describe("loadConfig returns an immutable Config", () => {
  it("every object, array and map of examples/full.cue is frozen", () => {
    const r = loadConfig({
      file: "full.cue",
      text: readFileSync(join(repoRoot(), "examples/full.cue"), "utf8"),
    });
    assert.ok(r.ok);
    const seen = new Set<unknown>();
    const walk = (v: unknown, path: string): void => {
      if (v === null || typeof v !== "object" || seen.has(v)) return;
      seen.add(v);
      assert.ok(Object.isFrozen(v), `${path} is not frozen`);
      if (v instanceof Map) {
        assert.throws(() => (v as Map<unknown, unknown>).set("x", 1), TypeError, `${path} accepts set()`);
        for (const [k, x] of v) walk(x, `${path}.${String(k)}`);
      } else {
        for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
      }
    };
    walk(r.config, "config");
    assert.ok(seen.size > 30, `walked only ${seen.size} objects`);
  });
});

/** The Config as plain JSON: maps become objects in insertion order. */
function toJson(config: Config): string {
  return `${JSON.stringify(config, (_k, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v), 2)}\n`;
}

describe("golden: decoded examples", () => {
  /** [document under the checkout, golden file under src/config/testdata]. */
  const goldens: [string, string][] = [
    ["examples/lookout.cue", "lookout.json.golden"],
    ["examples/full.cue", "full.json.golden"],
  ];
  for (const [file, name] of goldens) {
    it(`${file} decodes to testdata/${name} (UPDATE_GOLDEN=1 rewrites it)`, () => {
      const root = repoRoot();
      const r = loadConfig({ file, text: readFileSync(join(root, file), "utf8") });
      assert.ok(r.ok, r.ok ? "" : r.diagnostics.map(formatDiagnostic).join("\n"));
      const got = toJson(r.config);
      const golden = join(root, "src/config/testdata", name);
      if (process.env.UPDATE_GOLDEN === "1") writeFileSync(golden, got);
      assert.equal(got, readFileSync(golden, "utf8"));
    });
  }
});

describe("loadConfig never throws", () => {
  const inputs: [string, string][] = [
    ["empty", ""],
    ["unbalanced", "hosts: {{{{"],
    ["deep nesting", `${"a: {".repeat(5000)}${"}".repeat(5000)}`],
    ["binary", "\u0000\u0001\uFFFD hosts"],
    ["a scalar document", "42"],
    ["a list document", "[1, 2]"],
    ["a bottom", "hosts: _|_"],
  ];
  for (const [name, text] of inputs) {
    it(name, () => {
      const r = loadConfig({ file: "x.cue", text });
      assert.equal(r.ok, false);
      if (!r.ok) assert.ok(r.diagnostics.length > 0);
    });
  }
});

describe("loadConfig on damaged documents", () => {
  it("never throws, and every diagnostic has a position in the user's file", () => {
    const base = readFileSync(join(repoRoot(), "examples/lookout.cue"), "utf8");
    fc.assert(
      fc.property(
        fc.nat({ max: base.length }),
        fc.nat({ max: 12 }),
        fc.string({ maxLength: 4 }),
        (at, cut, insert) => {
          const text = base.slice(0, at) + insert + base.slice(Math.min(base.length, at + cut));
          const r = loadConfig({ file: "damaged.cue", text });
          if (r.ok) return true;
          return (
            r.diagnostics.length > 0 &&
            r.diagnostics.every(
              (d) => d.line >= 1 && d.column >= 1 && d.message.length > 0 && d.file === "damaged.cue",
            )
          );
        },
      ),
      { numRuns: 60 },
    );
  });
});
