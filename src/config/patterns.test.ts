import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile } from "../cue/index.js";
import { SCHEMA_PATTERNS } from "./patterns.js";
import { schemaSource } from "./schema-source.js";

/** The `#patterns` block of schema.cue: `name: "regex"` lines, as CUE (JSON-compatible) strings. */
function schemaPatterns(text: string): Map<string, string> {
  const block = /^#patterns: \{\n([\s\S]*?)\n\}/m.exec(text);
  assert.ok(block, "schema.cue has no #patterns block");
  const out = new Map<string, string>();
  for (const line of (block[1] as string).split("\n")) {
    const m = /^\s*([a-z_]+):\s*("(?:[^"\\]|\\.)*")\s*$/.exec(line);
    assert.ok(m, `unexpected line in #patterns: ${line}`);
    out.set(m[1] as string, JSON.parse(m[2] as string) as string);
  }
  return out;
}

describe("schema.cue patterns", () => {
  const { text } = schemaSource();
  const inSchema = schemaPatterns(text);
  const compiled = compile([{ name: "schema.cue", text }]);

  it("lists the same pattern names as the runtime", () => {
    assert.deepEqual([...inSchema.keys()].sort(), Object.keys(SCHEMA_PATTERNS).sort());
  });
  for (const [name, re] of Object.entries(SCHEMA_PATTERNS)) {
    it(`${name} is the same regex in schema.cue and patterns.ts`, () => {
      assert.equal(inSchema.get(name), re.source);
    });
    it(`${name} evaluates in CUE to the same regex`, () => {
      const v = compiled.lookup(["#patterns", name])?.export();
      assert.ok(v?.ok, `#patterns.${name} does not evaluate`);
      assert.equal(v.data, re.source);
    });
    it(`${name} is enforced by the schema through #patterns`, () => {
      assert.ok(text.includes(`=~#patterns.${name}`), `schema.cue never uses #patterns.${name}`);
    });
  }

  /** [pattern, accepted, rejected]: the reference's examples for each constraint. */
  const samples: [string, string[], string[]][] = [
    ["label_key", ["env", "a.b-c_d", "k8s"], ["Env", "1env", "", "a b", "a/b"]],
    ["label_value", ["prod", "V1.2:3/4-5_6", "0"], ["", "-x", "_x", "a b", "é"]],
    ["vars_key", ["PASSWORD", "A1_B"], ["password", "1A", "A-B", ""]],
    ["resources_key", ["USER1", "USER256"], ["USER", "user1", "USERx", "PASS1", "USER1 "]],
    ["sink_key", ["ch", "remote-write_2"], ["Ch", "2ch", "a.b", ""]],
    ["clickhouse_table", ["perfdata", "_t1", "T"], ["1t", "a-b", ""]],
    ["window_start", ["00:00", "09:30", "23:59"], ["24:00", "9:00", "12:60", "24:59"]],
    ["window_end", ["00:01", "23:59", "24:00", "24:59"], ["25:00", "9:00", "12:60"]],
    [
      "host_port",
      ["127.0.0.1:8080", "example.com:53", "[::1]:53"],
      ["127.0.0.1", ":53", "::1:53", "a:b", "a :1"],
    ],
    ["status_range", ["200-299", "100-599", "301-302"], ["200", "2xx", "600-700", "200-", "099-200"]],
    ["duration", ["0", "60s", "1h30m", "1.5s", "-5m"], ["", "5", "5d", "1 s", "s"]],
  ];
  for (const [name, ok, bad] of samples) {
    it(`${name} accepts and rejects the reference's examples`, () => {
      const re = SCHEMA_PATTERNS[name] as RegExp;
      for (const s of ok) assert.ok(re.test(s), `${name} should accept ${JSON.stringify(s)}`);
      for (const s of bad) assert.ok(!re.test(s), `${name} should reject ${JSON.stringify(s)}`);
    });
  }
});
