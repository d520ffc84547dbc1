/**
 * Imports point inward (ARCHITECTURE.md): a static scan of every source file's import lines that
 * fails when an inner room reaches an outer one. Tests are exempt (they may wire real parts), and
 * so is `testing/`, which holds what tests share.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

/** The source tree (this file runs compiled, from dist/src/). */
const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** The rooms outside the core of the model, the engine and the store: what those must never import. */
const OUTER = [
  "core",
  "consumers",
  "checks",
  "notify",
  "sinks",
  "api",
  "extcmd",
  "web",
  "zones",
  "app",
  "cli",
  "main.ts",
];

/** Per room, the rooms (top-level folders of src/) its non-test files may not import. */
const RULES: { room: string; mayNot: "anything outside" | readonly string[] }[] = [
  { room: "model", mayNot: "anything outside" },
  { room: "cue", mayNot: "anything outside" },
  { room: "engine", mayNot: OUTER },
  { room: "store", mayNot: OUTER },
  { room: "macros", mayNot: OUTER },
  { room: "nagios", mayNot: OUTER },
];

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

/** The relative specifiers a file imports or re-exports (static and dynamic). */
function relativeImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g)) {
    out.push(m[1] as string);
  }
  return out;
}

/** The top-level room under src/ of a path inside it (a file directly under src/ is its own room). */
const roomOf = (path: string): string => relative(SRC, path).split(sep)[0] as string;

test("relativeImports finds every form of import", () => {
  const text = [
    'import type { A } from "../model/a.js";',
    'import { b } from "./b.js";',
    'export * from "../store/c.js";',
    'import "../checks/side-effect.js";',
    'const m = await import("../app/d.js");',
    'import x from "node:fs";',
  ].join("\n");
  assert.deepEqual(relativeImports(text), [
    "../model/a.js",
    "./b.js",
    "../store/c.js",
    "../checks/side-effect.js",
    "../app/d.js",
  ]);
});

for (const rule of RULES) {
  test(`${rule.room}/ imports ${rule.mayNot === "anything outside" ? "nothing outside itself" : `none of ${rule.mayNot.join(", ")}`}`, () => {
    const wrong: string[] = [];
    for (const file of sources(join(SRC, rule.room))) {
      for (const spec of relativeImports(readFileSync(file, "utf8"))) {
        const target = roomOf(resolve(dirname(file), spec));
        const refused =
          rule.mayNot === "anything outside" ? target !== rule.room : rule.mayNot.includes(target);
        if (refused) wrong.push(`${relative(SRC, file)} imports ${spec}`);
      }
    }
    assert.deepEqual(wrong, []);
  });
}
