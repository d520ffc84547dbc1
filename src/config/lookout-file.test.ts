import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { isErrorFreePlainData } from "../cue/eval/plain-data.js";
import { parseFile } from "../cue/syntax/parser.js";
import { DEFAULT_LISTEN, loadConfig, lookoutFile } from "./loader.js";
import { generateFleet } from "./testing/generate-fleet.js";
import { repoRoot } from "./testing/repo-root.js";

const example = join(repoRoot(), "examples/lookout.cue");
const text = readFileSync(example, "utf8");

describe("_lookout.listen: the bundled example follows -listen", () => {
  const cases: { listen: string | undefined; address: string }[] = [
    { listen: undefined, address: "127.0.0.1:8080" },
    { listen: "127.0.0.1:9191", address: "127.0.0.1:9191" },
    { listen: ":9090", address: "127.0.0.1:9090" },
    { listen: "0.0.0.0:7000", address: "127.0.0.1:7000" },
    { listen: "[::]:7001", address: "[::1]:7001" },
    { listen: "[::1]:7002", address: "[::1]:7002" },
  ];
  for (const c of cases) {
    it(`-listen ${c.listen ?? "(none: lookout validate)"} → checks ${c.address}`, () => {
      const r = loadConfig({ file: example, text, ...(c.listen === undefined ? {} : { listen: c.listen }) });
      assert.ok(r.ok, r.ok ? "" : JSON.stringify(r.diagnostics));
      const host = r.config.hosts.get("localhost");
      assert.deepEqual(host?.check.type === "tcp" ? host.check.address : undefined, c.address);
      const metrics = host?.services.get("metrics")?.check;
      assert.equal(metrics?.type === "http" ? metrics.url : undefined, `http://${c.address}/metrics`);
    });
  }

  it("a document that sets _lookout itself conflicts, with a diagnostic", () => {
    const r = loadConfig({
      file: "x.cue",
      text: 'hosts: {}\n_lookout: listen: "1.2.3.4:1"\n',
      listen: "127.0.0.1:1",
    });
    assert.equal(r.ok, false);
  });
});

describe("the _lookout file keeps a generated document plain data", () => {
  // Plain data needs no evaluation for its errors (docs/cue.md); the file the loader adds beside
  // every document must not take that away, or a large fleet is evaluated once more for nothing.
  it("a generated fleet with the _lookout file beside it", () => {
    const fleet = parseFile("fleet.cue", generateFleet({ services: 100 }));
    const flags = lookoutFile(DEFAULT_LISTEN);
    const extra = parseFile(flags.name, flags.text);
    assert.deepEqual([...fleet.errors, ...extra.errors], []);
    assert.equal(isErrorFreePlainData([fleet.node, extra.node], 400, 20_000_000), true);
  });
});
