import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { compile } from "../cue/index.js";
import { formatDiagnostic } from "./diagnostic.js";
import { loadConfig } from "./loader.js";
import { repoRoot } from "./testing/repo-root.js";

/**
 * docs/cue.md, "What the engine does not support", stays true: every example there is run through
 * the loader (`lookout validate`) and must give exactly the diagnostics listed under it, and every
 * package and function it lists as not provided must really be refused as such.
 */
const doc = readFileSync(join(repoRoot(), "docs", "cue.md"), "utf8");
const start = doc.indexOf("\n## What the engine does not support\n");
const section = start < 0 ? "" : doc.slice(start, doc.indexOf("\n## ", start + 1));

describe("docs/cue.md: what the engine does not support", () => {
  it("has the section", () => {
    assert.ok(section.length > 0, "docs/cue.md lacks the section");
  });

  const examples = [...section.matchAll(/```cue\n([\s\S]*?)```\n[^`]*?```text\n([\s\S]*?)```/g)];
  it("has examples", () => {
    assert.ok(examples.length >= 3, `${examples.length} examples`);
  });
  for (const [, text, expected] of examples) {
    it(`example: ${(text ?? "").split("\n").find((l) => /[a-z]\./.test(l) || l.startsWith("import")) ?? text}`, () => {
      const r = loadConfig({ file: "fleet.cue", text: text ?? "" });
      const got = r.ok ? "(accepted)" : r.diagnostics.map(formatDiagnostic).join("\n");
      assert.equal(got, (expected ?? "").trim());
    });
  }

  it("every package it lists as not provided is refused", () => {
    const line = section
      .split("\n")
      .find((l) => l.startsWith("Packages of CUE's standard library it does not provide:"));
    assert.ok(line !== undefined, "the list of packages is missing");
    const names = [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
    assert.ok(names.length > 0);
    for (const p of names) {
      const v = compile([{ name: "x.cue", text: `import p "${p}"\nx: p.X\n` }]);
      assert.ok(
        v.errors.some((e) => e.message === `import "${p}" is not supported (only builtin packages are)`),
        `${p}: ${v.errors.map((e) => e.message).join("; ") || "no error"}`,
      );
    }
  });

  it("every function it lists as not provided is refused, at the call", () => {
    const items = section.split("\n").filter((l) => /^- `[a-z0-9/]+`: `/.test(l));
    assert.ok(items.length > 0, "the list of functions is missing");
    for (const item of items) {
      const [pkg, ...names] = [...item.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
      for (const f of names) {
        const v = compile([{ name: "x.cue", text: `import p "${pkg}"\nx: p.${f}\n` }]);
        assert.ok(
          v.errors.some((e) => e.message === `${pkg}.${f} is not supported (undefined or not implemented)`),
          `${pkg}.${f}: ${v.errors.map((e) => e.message).join("; ") || "no error"}`,
        );
      }
    }
  });
});
