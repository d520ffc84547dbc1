import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile, type Meter } from "../cue/index.js";
import { formatDiagnostic } from "./diagnostic.js";
import { createInstances, foldRepeats, splitPath, thousands } from "./instances.js";
import { DEFAULT_LISTEN, loadConfig, lookoutFile } from "./loader.js";
import { SCHEMA_FILE_NAME, schemaSource } from "./schema-source.js";
import { generateTemplateError, templateMistake } from "./testing/generate-template-error.js";

const HOSTS = 40;

describe("one mistake in a template many hosts use is one diagnostic, at the template, counting them", () => {
  const cases: { template: "pattern" | "hidden"; mistake: "type" | "field"; says: RegExp }[] = [
    { template: "pattern", mistake: "type", says: /^hosts\.h0\.services\.web\.check\.timeout: .*duration/ },
    { template: "hidden", mistake: "type", says: /^hosts\.h0\.services\.web\.check\.timeout: .*duration/ },
    {
      template: "pattern",
      mistake: "field",
      says: /^hosts\.h0\.services\.ssh\.check\.adress: unknown field "adress"/,
    },
    {
      template: "hidden",
      mistake: "field",
      says: /^hosts\.h0\.services\.ssh\.check\.adress: unknown field "adress"/,
    },
  ];
  for (const c of cases) {
    it(`${c.template} template, ${c.mistake} mistake`, () => {
      const text = generateTemplateError({ hosts: HOSTS, template: c.template, mistake: c.mistake });
      const r = loadConfig({ file: "fleet.cue", text });
      assert.equal(r.ok, false);
      if (r.ok) return;
      const shown = r.diagnostics.map(formatDiagnostic).join("\n");
      assert.equal(r.diagnostics.length, 1, shown);
      const d = r.diagnostics[0];
      assert.ok(d !== undefined);
      assert.match(d.message, c.says, shown);
      assert.ok(d.message.endsWith(`(in ${HOSTS} hosts: h0, h1 and ${HOSTS - 2} more)`), shown);
      assert.equal(d.instances, HOSTS);
      // At the template: the mistake's line, within the mistake's text.
      const m = templateMistake(c.mistake);
      const line = text.split("\n")[m.line - 1] ?? "";
      const start = line.indexOf(m.text) + 1;
      assert.equal(d.line, m.line, shown);
      assert.ok(d.column >= start && d.column < start + m.text.length, shown);
    });
  }

  it("a mistake the semantic checks find in the template is counted the same way", () => {
    const text = generateTemplateError({ hosts: HOSTS })
      .replace("timeout: 5}", 'timeout: "5s"}')
      .replace('notification: "oncall"', 'notification: "oncal"');
    const r = loadConfig({ file: "fleet.cue", text });
    assert.equal(r.ok, false);
    if (r.ok) return;
    const shown = r.diagnostics.map(formatDiagnostic).join("\n");
    assert.equal(r.diagnostics.length, 1, shown);
    assert.match(
      r.diagnostics[0]?.message ?? "",
      /^hosts\.h0\.notification: .*oncal.* \(in 40 hosts: h0, h1 and 38 more\)$/,
      shown,
    );
    assert.equal(r.diagnostics[0]?.line, 9, shown);
  });

  it("a mistake of one host's own is not counted", () => {
    const text = generateTemplateError({ hosts: 3 })
      .replace("timeout: 5}", 'timeout: "5s"}')
      .replace('h1: labels: rack: "r1"', 'h1: labels: Rack: "r1"');
    const r = loadConfig({ file: "fleet.cue", text });
    assert.equal(r.ok, false);
    if (r.ok) return;
    const shown = r.diagnostics.map(formatDiagnostic).join("\n");
    assert.equal(r.diagnostics.length, 1, shown);
    assert.doesNotMatch(r.diagnostics[0]?.message ?? "", /\(in /, shown);
    assert.equal(r.diagnostics[0]?.instances, undefined);
  });
});

describe("a templated fleet is evaluated once, with the schema", () => {
  // The loader's evaluation steps against those of unifying the document with #Schema and
  // exporting it: checking the document alone as well (all of it, before the schema) cost as much
  // again for a valid fleet and three times as much for a refused one.
  const schema = compile([{ name: SCHEMA_FILE_NAME, text: schemaSource().text }]).lookup(["#Schema"]);
  const cases: { name: string; edit: (t: string) => string; ok: boolean }[] = [
    { name: "valid", edit: (t) => t.replace("timeout: 5}", 'timeout: "5s"}'), ok: true },
    { name: "one mistake in the template", edit: (t) => t, ok: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.ok(schema !== undefined);
      const text = c.edit(generateTemplateError({ hosts: HOSTS * 5 }));
      const once: Meter = { steps: 0, vertices: 0 };
      const user = compile([{ name: "fleet.cue", text }, lookoutFile(DEFAULT_LISTEN)]);
      schema.unify(user, { meter: once, foldRepeatedErrors: true }).export();
      let spent: Meter | undefined;
      const r = loadConfig({ file: "fleet.cue", text, onSpent: (m) => (spent = { ...m }) });
      assert.equal(r.ok, c.ok);
      assert.ok(spent !== undefined);
      assert.ok(spent.steps <= once.steps * 1.1, `${spent.steps} steps, once is ${once.steps}`);
    });
  }
});

describe("instances: how a repeated problem names its places", () => {
  const cases: { paths: string[][]; text: string | undefined }[] = [
    { paths: [["hosts", "a", "x"]], text: undefined },
    {
      paths: [
        ["hosts", "a", "x"],
        ["hosts", "b", "x"],
      ],
      text: "(in 2 hosts: a and b)",
    },
    {
      paths: [
        ["hosts", "a", "x"],
        ["hosts", "b", "x"],
        ["hosts", "web-1", "x"],
      ],
      text: '(in 3 hosts: a, b and "web-1")',
    },
    {
      paths: Array.from({ length: 10_000 }, (_, i) => ["hosts", `h${i}`, "x"]),
      text: "(in 10,000 hosts: h0, h1 and 9,998 more)",
    },
    {
      paths: [
        ["hosts", "a", "x"],
        ["hosts", "a", "y"],
      ],
      text: "(in 2 places: hosts.a.x and hosts.a.y)",
    },
    {
      paths: [
        ["contacts", "a", "x"],
        ["contacts", "b", "x"],
        ["contacts", "c", "x"],
        ["contacts", "d", "x"],
      ],
      text: "(in 4 places: contacts.a.x, contacts.b.x and 2 more)",
    },
  ];
  for (const c of cases) {
    it(c.text ?? "once", () => {
      const g = createInstances(0);
      for (const p of c.paths) g.add(p);
      assert.equal(g.counted()?.text, c.text);
    });
  }

  it("writes counts with thousands separators as en-US does", () => {
    for (const n of [0, 7, 999, 1000, 9998, 10_000, 123_456, 1_234_567, 1_000_000_000]) {
      assert.equal(thousands(n), n.toLocaleString("en-US"));
    }
  });

  it("splits a message into the path formatPath wrote and the rest", () => {
    assert.deepEqual(splitPath('hosts."web 1".services.0.check: bad: really'), {
      path: ["hosts", "web 1", "services", "0", "check"],
      detail: "bad: really",
    });
    assert.equal(splitPath("the document must be a struct"), undefined);
    assert.equal(splitPath("(root): x"), undefined);
  });

  it("folds the same message at the same position, not at line 1, column 1", () => {
    const d = (message: string, line: number) => ({ message, file: "f.cue", line, column: 1 });
    const out = foldRepeats([
      d("hosts.a.x: bad", 3),
      d("hosts.b.x: bad", 3),
      d("hosts.c.x: worse", 3),
      d("hosts.a.y: bad", 1),
      d("hosts.b.y: bad", 1),
    ]);
    assert.deepEqual(
      out.map((x) => [x.message, x.instances]),
      [
        ["hosts.a.x: bad (in 2 hosts: a and b)", 2],
        ["hosts.c.x: worse", undefined],
        ["hosts.a.y: bad", undefined],
        ["hosts.b.y: bad", undefined],
      ],
    );
  });
});
