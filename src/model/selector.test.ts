import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { effectiveLabels, parseSelector } from "./selector.js";

const web = { env: "prod", tier: "web", team: "core" };
const db = { env: "staging", tier: "db" };
const bare = {};

/** [selector, labels, expected match]. */
const matchCases: [string, Readonly<Record<string, string>>, boolean][] = [
  ["", web, true],
  ["", bare, true],
  ["   ", bare, true],
  ["env=prod", web, true],
  ["env=prod", db, false],
  ["env=prod", bare, false],
  ["env==prod", web, true],
  ["env == prod", db, false],
  ["env!=prod", web, false],
  ["env!=prod", db, true],
  ["env!=prod", bare, true],
  ["tier in (web,db)", web, true],
  ["tier in (web, db)", db, true],
  ["tier in (cache)", web, false],
  ["tier in (web)", bare, false],
  ["tier notin (web)", web, false],
  ["tier notin (web)", db, true],
  ["tier notin (web)", bare, true],
  ["tier in(web)", web, true],
  ["team", web, true],
  ["team", db, false],
  ["!team", web, false],
  ["!team", db, true],
  ["! team", bare, true],
  ["env=prod,tier=web", web, true],
  ["env=prod, tier=db", web, false],
  [" env = prod , !team ", web, false],
  ["env in (prod,staging),!team", db, true],
  ["url=http://x/y", { url: "http://x/y" }, true],
  ["a.b-c_d=V1.2:3/4-5_6", { "a.b-c_d": "V1.2:3/4-5_6" }, true],
  ["env=prod", { env: "prod2" }, false],
  // Inherited Object properties are never labels.
  ["constructor", bare, false],
  ["!constructor", bare, true],
];

/** [selector, message substring, 1-based column]. */
const errorCases: [string, string, number][] = [
  ["=prod", "expected a label key", 1],
  ["env=", "expected a label value", 5],
  ["env=prod,", "expected a label key", 10],
  [",env", "expected a label key", 1],
  ["env=prod tier=web", `expected "," or end of selector`, 10],
  ["Env=prod", `invalid label key "Env"`, 1],
  ["env=_prod", `invalid label value "_prod"`, 5],
  ["env=pr od", `expected "," or end of selector`, 8],
  ["env prod", `expected one of "=", "==", "!=", "in", "notin"`, 5],
  ["env !prod", `expected "!=" after key "env"`, 5],
  ["env in prod", `expected "(" to open the value list`, 8],
  ["env in ()", "expected at least one value in the list", 9],
  ["env in (a,)", "expected a label value", 11],
  ["env in (a b)", `expected "," or ")" in the value list`, 11],
  ["env in (a", `expected "," or ")" in the value list`, 10],
  ["env notin a", `expected "(" to open the value list`, 11],
  ["!", "expected a label key", 2],
  ["!env=prod", `expected "," or end of selector`, 5],
  ["env=prod)", `expected "," or end of selector`, 9],
  ["env=é", "expected a label value", 5],
];

describe("parseSelector", () => {
  for (const [text, labels, want] of matchCases) {
    it(`${JSON.stringify(text)} on ${JSON.stringify(labels)} → ${want}`, () => {
      const r = parseSelector(text);
      assert.ok(r.ok, r.ok ? "" : `${r.message} at ${r.column}`);
      assert.equal(r.selector.source, text);
      assert.equal(r.selector.matches(labels), want);
    });
  }
  for (const [text, message, column] of errorCases) {
    it(`${JSON.stringify(text)} is rejected at column ${column}`, () => {
      const r = parseSelector(text);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.ok(r.message.includes(message), `message ${JSON.stringify(r.message)} lacks ${message}`);
      assert.equal(r.column, column, r.message);
    });
  }
});

describe("effectiveLabels", () => {
  const host = { labels: { env: "prod", tier: "web" } };
  const cases: [string, { labels: Record<string, string> } | undefined, Record<string, string>][] = [
    ["host alone", undefined, { env: "prod", tier: "web" }],
    ["service without labels", { labels: {} }, { env: "prod", tier: "web" }],
    ["service adds a key", { labels: { app: "shop" } }, { env: "prod", tier: "web", app: "shop" }],
    ["service overrides a key", { labels: { env: "staging" } }, { env: "staging", tier: "web" }],
  ];
  for (const [name, service, want] of cases) {
    it(name, () => {
      assert.deepEqual(effectiveLabels(host, service), want);
    });
  }
  it("a service selector sees the host's labels", () => {
    const r = parseSelector("env=prod,app=shop");
    assert.ok(r.ok);
    assert.equal(r.selector.matches(effectiveLabels(host, { labels: { app: "shop" } })), true);
    assert.equal(r.selector.matches(effectiveLabels(host)), false);
  });
});

describe("parseSelector on arbitrary input", () => {
  it("never throws, and a rejection points inside the text or just past it", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const r = parseSelector(text);
        if (!r.ok) return r.column >= 1 && r.column <= text.length + 1 && r.message.length > 0;
        return r.selector.source === text;
      }),
      { numRuns: 2000 },
    );
  });

  const key = fc.stringMatching(/^[a-z][a-z0-9_.-]{0,5}$/);
  const value = fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9_.:/-]{0,5}$/);
  const labels = fc.dictionary(key, value, { maxKeys: 4 });
  type Req = { op: "=" | "!=" | "in" | "notin" | "exists" | "!"; key: string; values: string[] };
  const req = fc.record({
    op: fc.constantFrom<Req["op"]>("=", "!=", "in", "notin", "exists", "!"),
    key,
    values: fc.array(value, { minLength: 1, maxLength: 3 }),
  });
  const text = (r: Req): string => {
    switch (r.op) {
      case "=":
      case "!=":
        return `${r.key}${r.op}${r.values[0]}`;
      case "in":
      case "notin":
        return `${r.key} ${r.op} (${r.values.join(", ")})`;
      case "exists":
        return r.key;
      case "!":
        return `!${r.key}`;
    }
  };
  const holds = (r: Req, l: Record<string, string>): boolean => {
    const has = Object.hasOwn(l, r.key);
    const v = l[r.key] as string;
    switch (r.op) {
      case "=":
        return has && v === r.values[0];
      case "!=":
        return !has || v !== r.values[0];
      case "in":
        return has && r.values.includes(v);
      case "notin":
        return !has || !r.values.includes(v);
      case "exists":
        return has;
      case "!":
        return !has;
    }
  };
  it("matches exactly when every requirement holds", () => {
    fc.assert(
      fc.property(fc.array(req, { maxLength: 4 }), labels, (reqs, l) => {
        const r = parseSelector(reqs.map(text).join(", "));
        if (!r.ok) return false;
        return r.selector.matches(l) === reqs.every((q) => holds(q, l));
      }),
      { numRuns: 1000 },
    );
  });
});
