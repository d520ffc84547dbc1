import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { repoRoot } from "./testing/repo-root.js";
import { runValidateCli } from "./validate-cli.js";

const dir = mkdtempSync(join(tmpdir(), "lookout-validate-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runValidateCli(args, {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
  });
  return { code, out, err };
}

describe("lookout validate", () => {
  const good = file("good.cue", `hosts: a: {address: "a", check: {type: "tcp", address: "a:1"}}\n`);
  const bad = file("bad.cue", `hosts: a: {address: "a", check: {type: "htp"}}\nhostz: 1\n`);
  const cmd = file(
    "cmd.cue",
    `commands: x: line: "true"\nhosts: a: {address: "a", check: {type: "command", command: "x"}}\n`,
  );
  /** [args, exit code, stdout pattern, stderr pattern]. */
  const cases: [string[], number, RegExp, RegExp][] = [
    [[good], 0, /^.*good\.cue: ok: 1 host, 0 services, 0 contacts, 0 policies, 0 sinks, 0 views\n$/, /^$/],
    [
      [join(repoRoot(), "examples/lookout.cue")],
      0,
      /ok: 1 host, 2 services, 0 contacts, 0 policies, 0 sinks, 1 view\n$/,
      /^$/,
    ],
    [
      [bad],
      1,
      /^$/,
      /^.*bad\.cue:1:\d+: hosts\.a\.check\.type: unknown check type "htp"; allowed types: command, .*\n.*bad\.cue:2:1: hostz: unknown top-level field "hostz".*\n$/,
    ],
    [[cmd], 0, /1 host/, /^$/],
    [
      ["-config-profile", "demo", cmd],
      1,
      /^$/,
      /check type "command" is not supported under -config-profile demo/,
    ],
    [["-config-profile=demo", good], 0, /ok/, /^$/],
    [["-config-profile", "demo", join(repoRoot(), "examples/lookout.cue")], 0, /ok: 1 host/, /^$/],
    [
      ["-config-profile", "demo", join(repoRoot(), "examples/full.cue")],
      1,
      /^$/,
      /commands: a non-empty commands block is not supported under -config-profile demo/,
    ],
    [["--config-profile", "demo", good], 0, /ok/, /^$/],
    [[join(dir, "missing.cue")], 1, /^$/, /missing\.cue: cannot read: ENOENT/],
    [[], 2, /^$/, /FILE is missing\nusage: lookout validate/],
    [["-config-profile", "prod", good], 2, /^$/, /unknown -config-profile "prod"/],
    [[good, good], 2, /^$/, /exactly one FILE/],
    [["-x", good], 2, /^$/, /unknown flag -x/],
    [["-h"], 2, /^$/, /^usage: lookout validate/],
  ];
  for (const [args, code, out, err] of cases) {
    it(args.map((a) => a.replace(dir, "<tmp>")).join(" ") || "(no args)", async () => {
      const r = await run(args);
      assert.equal(r.code, code, r.err);
      assert.match(r.out, out);
      assert.match(r.err, err);
    });
  }
});
