import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { gunzipSync } from "node:zlib";
import { createStaticSite } from "./static-site.js";

describe("createStaticSite", () => {
  const dir = mkdtempSync(join(tmpdir(), "lookout-site-"));
  mkdirSync(join(dir, "assets"));
  const js = `console.log(${JSON.stringify("x".repeat(2000))});\n`;
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>Lookout</title>");
  writeFileSync(join(dir, "assets", "index-abc123.js"), js);
  writeFileSync(join(dir, "assets", "index-abc123.css"), "body{}");
  const site = createStaticSite(dir);
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases: {
    path: string;
    accept?: string;
    type?: string;
    cache?: string;
    encoding?: string;
  }[] = [
    { path: "/", type: "text/html; charset=utf-8", cache: "no-cache" },
    { path: "/index.html", type: "text/html; charset=utf-8", cache: "no-cache" },
    {
      path: "/assets/index-abc123.js",
      type: "text/javascript; charset=utf-8",
      cache: "public, max-age=31536000, immutable",
    },
    {
      path: "/assets/index-abc123.js",
      accept: "gzip, deflate, br",
      type: "text/javascript; charset=utf-8",
      cache: "public, max-age=31536000, immutable",
      encoding: "gzip",
    },
    // Too small to be worth compressing: sent as is even to a gzip client.
    {
      path: "/assets/index-abc123.css",
      accept: "gzip",
      type: "text/css; charset=utf-8",
      cache: "public, max-age=31536000, immutable",
    },
    { path: "/assets/missing.js" },
    { path: "/svc.v1.QueryService/ListStatus" },
    { path: "/metrics" },
  ];
  for (const c of cases) {
    test(`${c.path} ${c.accept ?? ""}`, () => {
      assert.equal(site.built, true);
      const a = site.serve(c.path, c.accept);
      if (c.type === undefined) {
        assert.equal(a, undefined);
        return;
      }
      assert.ok(a !== undefined);
      assert.equal(a.headers["content-type"], c.type);
      assert.equal(a.headers["cache-control"], c.cache);
      assert.equal(a.headers["content-encoding"], c.encoding);
      assert.equal(a.headers["content-length"], String(a.body.length));
      if (c.encoding === "gzip") assert.equal(gunzipSync(a.body).toString(), js);
    });
  }

  test("without a build nothing is served", () => {
    const empty = createStaticSite(join(dir, "nothing-here"));
    assert.equal(empty.built, false);
    assert.equal(empty.serve("/", "gzip"), undefined);
  });
});
