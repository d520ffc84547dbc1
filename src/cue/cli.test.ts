import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runCueCli } from "./cli.js";

let dir: string;
const files: Record<string, string> = {
  "ok.cue": 'a: 1\nb: "x"\nc: *2.0 | int\n',
  "schema.cue":
    '#Host: {address: string, port: *22 | int}\nhosts: [string]: #Host\nhosts: web: address: "10.0.0.1"\n',
  "conflict.cue": 'hosts: web2: check: type: "http"\nhosts: web2: check: type: "htp"\n',
  "incomplete.cue": "a: int\nb: 1\n",
  "syntax.cue": "a: {\n",
  "good.json": '{"hosts": {"db": {"address": "10.0.0.2"}}}\n',
  "bad.json": '{"hosts": {"db": {"address": 5}}}\n',
};

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-cue-cli-"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCueCli(
    args.map((a) => (a.endsWith(".cue") || a.endsWith(".json") ? join(dir, a) : a)),
    { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } },
  );
  return { code, out, err: err.replaceAll(dir, "DIR") };
}

describe("lookout cue", () => {
  const cases: {
    name: string;
    args: string[];
    code: number;
    out?: string;
    err?: RegExp;
  }[] = [
    {
      name: "export prints indented JSON",
      args: ["export", "ok.cue"],
      code: 0,
      out: '{\n  "a": 1,\n  "b": "x",\n  "c": 2.0\n}\n',
    },
    {
      name: "export applies schemas and defaults",
      args: ["export", "schema.cue"],
      code: 0,
      out: '{\n  "hosts": {\n    "web": {\n      "address": "10.0.0.1",\n      "port": 22\n    }\n  }\n}\n',
    },
    {
      name: "export unifies several files",
      args: ["export", "ok.cue", "schema.cue"],
      code: 0,
    },
    {
      name: "export reports conflicts with path and positions",
      args: ["export", "conflict.cue"],
      code: 1,
      err: /^hosts\.web2\.check\.type: conflicting values "http" and "htp":\n {4}DIR\/conflict\.cue:1:27\n {4}DIR\/conflict\.cue:2:27\n$/,
    },
    {
      name: "export of a non-concrete value fails",
      args: ["export", "incomplete.cue"],
      code: 1,
      err: /^a: /,
    },
    { name: "export reports syntax errors", args: ["export", "syntax.cue"], code: 1, err: /expected '}'/ },
    {
      name: "export -e selects a path",
      args: ["export", "-e", "hosts.web", "schema.cue"],
      code: 0,
      out: '{\n  "address": "10.0.0.1",\n  "port": 22\n}\n',
    },
    {
      name: "export -e of a missing path",
      args: ["export", "-e", "hosts.db", "schema.cue"],
      code: 1,
      err: /not found/,
    },
    { name: "export -e without a path", args: ["export", "-e"], code: 2, err: /needs a path/ },
    { name: "vet is silent on valid input", args: ["vet", "schema.cue"], code: 0, out: "" },
    { name: "vet accepts JSON data that fits the schema", args: ["vet", "schema.cue", "good.json"], code: 0 },
    {
      name: "vet rejects JSON data that does not fit the schema",
      args: ["vet", "schema.cue", "bad.json"],
      code: 1,
      err: /^hosts\.db\.address: conflicting values/,
    },
    { name: "vet reports conflicts", args: ["vet", "conflict.cue"], code: 1, err: /conflicting values/ },
    { name: "vet accepts non-concrete values", args: ["vet", "incomplete.cue"], code: 0 },
    { name: "vet -c requires concrete values", args: ["vet", "-c", "incomplete.cue"], code: 1, err: /^a: / },
    {
      name: "missing file",
      args: ["export", "nope.cue"],
      code: 1,
      err: /cannot read DIR\/nope\.cue: no such file/,
    },
    { name: "no files is a usage error", args: ["export"], code: 2, err: /no input files/ },
    {
      name: "unknown command is a usage error",
      args: ["eval", "ok.cue"],
      code: 2,
      err: /unknown command "eval"/,
    },
    {
      name: "unknown flag is a usage error",
      args: ["export", "--out", "ok.cue"],
      code: 2,
      err: /unknown flag --out/,
    },
    { name: "help", args: ["help"], code: 0, out: undefined },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const r = await run(...c.args);
      assert.equal(r.code, c.code, `stderr: ${r.err}`);
      if (c.out !== undefined) assert.equal(r.out, c.out);
      if (c.err !== undefined) assert.match(r.err, c.err);
      if (c.code === 0 && c.args[0] !== "help") assert.equal(r.err, "");
    });
  }
});
