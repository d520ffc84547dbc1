import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile } from "../cue/index.js";
import { DEFINITION_FIELDS, definitionAt, unknownFieldAdvice } from "./schema-fields.js";
import { schemaSource } from "./schema-source.js";

/** Data that resolves a definition's embedded disjunction, so its fields can be looked up. */
const WITNESS: Readonly<Record<string, string>> = { "#SnmpCheck": `community: "public"` };

/** Fields the schema declares optional (`name?:`), which a lookup does not find. */
const OPTIONAL = new Set([
  "#Schema.sinks",
  "#SnmpCheck.community",
  "#SnmpCheck.user",
  "#SnmpFields.community",
  "#SnmpFields.user",
  ...[
    "headers",
    "body",
    "expect_status",
    "expect_body",
    "expect_body_regex",
    "ca_file",
    "sni",
    "warn",
    "crit",
  ].map((f) => `#HttpCheck.${f}`),
  "#TlsCheck.ca_file",
  "#TlsCheck.sni",
]);

describe("schema-fields", () => {
  const schema = compile([{ name: "schema.cue", text: schemaSource().text }]);
  it("the schema compiles", () => assert.deepEqual(schema.errors, []));
  for (const [def, fields] of Object.entries(DEFINITION_FIELDS)) {
    it(`${def} declares ${fields.join(", ")}`, () => {
      const base = schema.lookup([def]);
      assert.ok(base, `schema.cue has no ${def}`);
      const witness = WITNESS[def];
      const value = witness === undefined ? base : base.unify(compile([{ name: "w.cue", text: witness }]));
      for (const f of fields) {
        if (OPTIONAL.has(`${def}.${f}`)) {
          assert.ok(schemaSource().text.includes(`${f}?:`), `${def}.${f} is not optional in schema.cue`);
          continue;
        }
        assert.ok(value.lookup([f]), `${def} has no field ${f}`);
      }
    });
  }

  const raw = {
    hosts: { a: { check: { type: "tls" }, services: { s: { check: { type: "wasm" } } } } },
    sinks: { k: { type: "otlp" } },
  };
  /** [path, definition]. */
  const defs: [string[], string | undefined][] = [
    [[], "#Schema"],
    [["hosts", "a"], "#Host"],
    [["hosts", "a", "check"], "#TlsCheck"],
    [["hosts", "a", "check", "flap"], "#Flap"],
    [["hosts", "a", "services", "s"], "#Service"],
    [["hosts", "a", "services", "s", "check"], "#WasmCheck"],
    [["sinks", "k"], "#OtlpSink"],
    [["notifications", "p", "levels", "0"], "#EscalationLevel"],
    [["notifications", "p", "period", "1"], "#Window"],
    [["hosts", "a", "labels"], undefined],
  ];
  for (const [path, want] of defs) {
    it(`definitionAt ${path.join(".") || "(root)"} is ${want}`, () =>
      assert.equal(definitionAt(path, raw), want));
  }

  /** [parent path, unknown name, advice]. */
  const advice: [string[], string, string][] = [
    [[], "host", `; did you mean "hosts"?`],
    [["hosts", "a"], "adress", `; did you mean "address"?`],
    [["hosts", "a", "check"], "warn_withing", `; did you mean "warn_within"?`],
    [
      ["hosts", "a", "check"],
      "url",
      "; allowed fields: type, check_interval, retry_interval, timeout, max_attempts, flap, address, warn_within, crit_within, verify, ca_file, sni",
    ],
    [["hosts", "a", "labels"], "x", ""],
    // A field the schema allows (refused by a user's closed struct) is never its own suggestion.
    [["hosts", "a", "check"], "check_interval", ""],
  ];
  for (const [parent, name, want] of advice) {
    it(`advice for ${parent.join(".")}.${name}`, () =>
      assert.equal(unknownFieldAdvice(parent, name, raw), want));
  }
});
