import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { compile } from "../index.js";
import { setReleaseMinForTesting } from "./export-walk.js";
import { setFastExportForTesting } from "./fast-export.js";
import { vertexOf } from "./instance.js";
import { EVALUATED, NEW, type Vertex } from "./vertex.js";

/** A map of `n` entries `e0…`, each `entry(i)`, plus `extra` source. */
function bigMap(n: number, entry: (i: number) => string, extra = ""): string {
  const lines = ["m: {"];
  for (let i = 0; i < n; i++) lines.push(`\te${i}: ${entry(i)}`);
  lines.push("}", extra);
  return lines.join("\n");
}

interface Case {
  readonly name: string;
  readonly src: string;
  /** Whether `m.e3` is released by export (replaced by an unevaluated copy). */
  readonly released: boolean;
}

const cases: Case[] = [
  {
    name: "plain entries are released",
    src: bigMap(20, (i) => `{a: ${i}, b: {c: "x${i}"}}`),
    released: true,
  },
  {
    name: "entries checked by a definition are released",
    src: bigMap(20, (i) => `#E & {a: ${i}}`, '#E: {a: int, b: *"d" | string, c: {d: a + 1}}'),
    released: true,
  },
  {
    name: "a map a reference reaches is kept",
    src: bigMap(20, (i) => `{a: ${i}}`, "x: m.e3.a"),
    released: false,
  },
  {
    name: "a field alias keeps its field",
    src: bigMap(20, (i) => `{a: ${i}}`, "M=m: _\ny: M.e4.a"),
    released: false,
  },
  {
    name: "a pattern's field alias binding the entry keeps it",
    src: bigMap(20, (i) => `{a: ${i}}`, "m: X=[string]: {b: X.a}"),
    released: false,
  },
  {
    name: "an entry evaluated through a reference cycle is kept",
    src: bigMap(20, (i) => `{a: b + 1, b: a - 1, a: ${i}}`),
    released: false,
  },
  {
    name: "small structs are not released",
    src: bigMap(5, (i) => `{a: ${i}}`),
    released: false,
  },
];

function e3(value: ReturnType<typeof compile>): Vertex | undefined {
  const h = vertexOf(value);
  return h?.v.arcs?.get("m")?.arcs?.get("e3");
}

describe("export releases finished fields", () => {
  // Releasing is what the general evaluator does with what it evaluated; the fast export path
  // (fast-export.ts) evaluates nothing to release.
  before(() => setFastExportForTesting(false));
  after(() => setFastExportForTesting(undefined));
  afterEach(() => setReleaseMinForTesting(undefined));
  for (const c of cases) {
    it(c.name, () => {
      setReleaseMinForTesting(0);
      const kept = compile([{ name: "a.cue", text: c.src }]);
      const want = kept.export();
      assert.ok(want.ok, JSON.stringify(want));
      setReleaseMinForTesting(undefined);
      const v = compile([{ name: "a.cue", text: c.src }]);
      const got = v.export();
      assert.ok(got.ok);
      assert.deepEqual(got.data, want.data);
      assert.equal(e3(v)?.status, c.released ? NEW : EVALUATED);
      // Positions survive the release, and a released field evaluates again on demand.
      const m = (got.data as { m: Record<string, object> }).m;
      const wm = (want.data as { m: Record<string, object> }).m;
      assert.deepEqual(got.positions.of(m, "e3"), want.positions.of(wm, "e3"));
      assert.deepEqual(got.positions.of(m.e3 as object, "a"), want.positions.of(wm.e3 as object, "a"));
      const again = v.lookup(["m", "e3"])?.export();
      assert.ok(again?.ok);
      assert.deepEqual(again.data, (want.data as { m: Record<string, unknown> }).m.e3);
      assert.deepEqual(v.toJSON(0), kept.toJSON(0));
    });
  }

  it("the errors walk releases too, and export after it gives the same data", () => {
    // (Not plain data: plain data has no errors to look for, see plain-data.ts.)
    const src = bigMap(20, (i) => `#E & {a: ${i}, b: [1, 2, {c: ${i}}]}`, "#E: {a: int, b: [...]}");
    const v = compile([{ name: "a.cue", text: src }]);
    assert.deepEqual(v.errors, []);
    assert.equal(e3(v)?.status, NEW);
    setReleaseMinForTesting(0);
    const want = compile([{ name: "a.cue", text: src }]).export();
    setReleaseMinForTesting(undefined);
    const got = v.export();
    assert.ok(got.ok && want.ok);
    assert.deepEqual(got.data, want.data);
  });

  it("an entry with an error is kept and reported the same way", () => {
    const src = bigMap(20, (i) => (i === 3 ? `{a: 1, a: 2}` : `{a: ${i}}`));
    const v = compile([{ name: "a.cue", text: src }]);
    const r = v.export();
    assert.equal(r.ok, false);
    assert.deepEqual(
      v.errors.map((e) => `${e.path.join(".")}: ${e.message}`),
      ["m.e3.a: conflicting values 1 and 2"],
    );
    assert.equal(e3(v)?.status, EVALUATED);
  });
});

describe("toJSON text", () => {
  const texts: { src: string; indent: number; text: string }[] = [
    { src: "a: [], b: {}", indent: 0, text: '{"a":[],"b":{}}' },
    {
      src: "a: [1, {x: []}], b: {c: {}}",
      indent: 2,
      text: '{\n  "a": [\n    1,\n    {\n      "x": []\n    }\n  ],\n  "b": {\n    "c": {}\n  }\n}',
    },
    { src: 'a: 1.0, b: "é\\n", c: null, d: true', indent: 0, text: '{"a":1.0,"b":"é\\n","c":null,"d":true}' },
    { src: "{}", indent: 4, text: "{}" },
  ];
  for (const t of texts) {
    it(JSON.stringify(t.src), () => {
      assert.deepEqual(compile([{ name: "a.cue", text: t.src }]).toJSON(t.indent), {
        ok: true,
        text: t.text,
      });
    });
  }

  it("a long document is the same text in chunks", () => {
    const src = bigMap(3000, (i) => `{a: ${i}, b: [${i}, "x"], c: {}}`);
    const r = compile([{ name: "a.cue", text: src }]).toJSON(0);
    assert.ok(r.ok);
    const m = (JSON.parse(r.text) as { m: Record<string, unknown> }).m;
    assert.equal(Object.keys(m).length, 3000);
    assert.deepEqual(m.e2999, { a: 2999, b: [2999, "x"], c: {} });
  });
});

describe("positions on demand", () => {
  const src =
    'x: *{a: 1} | {b: 2}\ny: [1, {c: 3}]\n"#q": {r: 1}\nz: #D & {s: 2}\n#D: {s: int, t: *"u" | string}';
  const cases: { path: (string | number)[]; key: string | number; of: string[]; values?: string[] }[] = [
    { path: ["x"], key: "a", of: ["1:6"], values: ["1:9"] },
    { path: ["y", 1], key: "c", of: ["2:9"] },
    { path: ["y"], key: 1, of: ["2:8"], values: ["2:8"] },
    { path: [], key: "#q", of: ["3:1"] },
    { path: ["#q"], key: "r", of: ["3:8"] },
    { path: ["z"], key: "s", of: ["4:10", "5:6"], values: ["4:13", "5:9"] },
    { path: ["z"], key: "t", of: ["5:14"] },
    { path: ["z"], key: "nope", of: [] },
  ];
  const r = compile([{ name: "a.cue", text: src }]).export();
  for (const c of cases) {
    it(`${c.path.join(".")}.${c.key}`, () => {
      assert.ok(r.ok);
      let container: unknown = r.data;
      for (const k of c.path) container = (container as Record<string | number, unknown>)[k];
      const fmt = (ps: readonly { line: number; column: number }[]) => ps.map((p) => `${p.line}:${p.column}`);
      assert.deepEqual(fmt(r.positions.of(container as object, c.key)), c.of);
      if (c.values !== undefined)
        assert.deepEqual(fmt(r.positions.values(container as object, c.key)), c.values);
    });
  }
});
