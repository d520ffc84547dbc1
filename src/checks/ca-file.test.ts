import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createCaFileReader } from "./ca-file.js";

const pem = (body: string) => `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;

describe("ca_file reader", () => {
  const dir = mkdtempSync(join(tmpdir(), "lookout-ca-file-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("reads a bundle, re-reads it when it changes, and says when it is gone", async () => {
    const path = join(dir, "ca.pem");
    const reader = createCaFileReader();
    writeFileSync(path, pem("AAAA"));
    assert.deepEqual(await reader.read(path), { ok: true, pem: pem("AAAA") });
    assert.deepEqual(await reader.read(path), { ok: true, pem: pem("AAAA") });
    // A renewed bundle (another size) is used from the next read on, without a reload.
    writeFileSync(path, pem("BBBBBBBB"));
    assert.deepEqual(await reader.read(path), { ok: true, pem: pem("BBBBBBBB") });
    writeFileSync(path, "not a certificate\n");
    assert.deepEqual(await reader.read(path), {
      ok: false,
      error: `ca_file ${JSON.stringify(path)} holds no PEM certificate`,
    });
    rmSync(path);
    assert.deepEqual(await reader.read(path), {
      ok: false,
      error: `cannot read ca_file ${JSON.stringify(path)}: No such file or directory`,
    });
  });
});
