import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadConfig } from "./loader.js";
import { planConfig, planConfigInSteps, planSummary } from "./plan.js";

const load = (text: string) => {
  const r = loadConfig({ file: "plan.cue", text });
  if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
  return r.config;
};
const passive = `{type: "passive", freshness_threshold: "1h"}`;
const hosts = (names: readonly string[], extra = "") =>
  names
    .map((n) => `hosts: ${n}: {address: "127.0.0.1", check: ${passive}, services: disk: check: ${passive}}\n`)
    .join("") + extra;

describe("planSummary", () => {
  const cases: { name: string; before: string; after: string; want: string }[] = [
    { name: "nothing changes", before: hosts(["a"]), after: hosts(["a"]), want: "+0 ~0 -0 objects" },
    { name: "hosts replaced", before: hosts(["a"]), after: hosts(["b"]), want: "+2 ~0 -2 objects" },
    {
      name: "a check changed on a kept object",
      before: hosts(["a"]),
      after: hosts(["a"]).replace(
        `check: ${passive}, services`,
        `check: {type: "tcp", address: "127.0.0.1:1"}, services`,
      ),
      want: "+0 ~0 -0 objects, ~1 checks",
    },
    {
      name: "an object changed (labels) and a contact added",
      before: hosts(["a"]),
      after: `${hosts(["a"])}hosts: a: labels: {env: "prod"}\ncontacts: ops: {type: "email", address: "ops@example.org"}\n`,
      want: "+0 ~1 -0 objects, +1 ~0 -0 contacts",
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const before = load(c.before);
      const after = load(c.after);
      assert.equal(planSummary(planConfig(before, after)), c.want);
      // In steps (of one object here) the plan is the same.
      assert.deepEqual(await planConfigInSteps(before, after, 1), planConfig(before, after));
    });
  }
});
