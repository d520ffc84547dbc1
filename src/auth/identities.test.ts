import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadIdentities } from "./identities.js";
import { tokenSha256 } from "./token.js";

// A real hash of "pw" (lookout auth hash-password), so the table needs no scrypt run.
const HASH = "$scrypt$ln=14,r=8,p=1$zTOKN6qmeJb7jepEKI57fg$+h41jWnqrJrgay5nOCs9xpllVq/7xjvKPfuwG/ASbo0";
const T1 = tokenSha256("one");

describe("loadIdentities", () => {
  const good: { name: string; text: string; names: string[]; tokens: number }[] = [
    { name: "empty document", text: "// no one yet\n", names: [], tokens: 0 },
    {
      name: "token and password",
      text: `identities: alice: {role: "admin", token_sha256: "${T1}", password: "${HASH}"}\n`,
      names: ["alice"],
      tokens: 1,
    },
    {
      name: "CUE features: a default role through a pattern",
      text: `identities: [_]: {role: *"viewer" | _}\nidentities: {\n\tbob: {}\n\t"ci@example.org": {role: "operator", token_sha256: "${T1}"}\n}\n`,
      names: ["bob", "ci@example.org"],
      tokens: 1,
    },
  ];
  for (const c of good) {
    test(`accepts ${c.name}`, () => {
      const r = loadIdentities("auth.cue", c.text);
      assert.ok(r.ok, JSON.stringify(r));
      assert.deepEqual([...r.identities.byName.keys()].sort(), c.names);
      assert.equal(r.identities.byToken.size, c.tokens);
    });
  }

  const bad: { name: string; text: string; want: RegExp }[] = [
    { name: "garbage", text: "identities: {{{\n", want: /^auth\.cue:\d+:\d+: expected/ },
    {
      name: "an unknown role",
      text: 'identities: bob: {role: "root"}\n',
      want: /^auth\.cue:1:25: identities\.bob\.role: unknown role "root"/,
    },
    {
      name: "a missing role",
      text: "identities: bob: {}\n",
      want: /^auth\.cue:1:\d+: identities\.bob\.role: field is required/,
    },
    {
      name: "a plaintext password",
      text: 'identities: {\n\tbob: {role: "viewer", password: "hunter2"}\n}\n',
      want: /^auth\.cue:2:\d+: identities\.bob\.password: not a password hash/,
    },
    {
      name: "a duplicate token",
      text: `identities: {\n\ta: {role: "viewer", token_sha256: "${T1}"}\n\tb: {role: "admin", token_sha256: "${T1}"}\n}\n`,
      want: /^auth\.cue:3:\d+: identities\.b\.token_sha256: the same token as identity "a"/,
    },
    {
      name: "a token that is not a SHA-256",
      text: 'identities: a: {role: "viewer", token_sha256: "abc"}\n',
      want: /^auth\.cue:1:\d+: identities\.a\.token_sha256: /,
    },
    {
      name: "a misspelt field",
      text: 'identities: a: {role: "viewer", pasword: "x"}\n',
      want: /pasword: field not allowed/,
    },
    {
      name: "a top-level field of the main config",
      text: "hosts: {}\n",
      want: /^auth\.cue:1:1: hosts: field not allowed/,
    },
    {
      name: "a name that needs quoting in logs",
      text: 'identities: "a b": {role: "viewer"}\n',
      want: /a name is 1 to 64/,
    },
  ];
  for (const c of bad) {
    test(`refuses ${c.name} at file:line:column`, () => {
      const r = loadIdentities("auth.cue", c.text);
      assert.equal(r.ok, false);
      if (r.ok) return;
      const lines = r.diagnostics.map((d) => `${d.file}:${d.line}:${d.column}: ${d.message}`);
      assert.ok(
        lines.some((l) => c.want.test(l)),
        lines.join("\n"),
      );
    });
  }
});
