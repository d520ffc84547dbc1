import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { hashPassword, isPasswordHash, PASSWORD_HASH_PATTERN, verifyPassword } from "./password.js";

describe("password hashes", () => {
  test("a hash has the documented form, a fresh salt, and verifies only its password", async () => {
    const [a, b] = await Promise.all([hashPassword("secret"), hashPassword("secret")]);
    assert.match(a, PASSWORD_HASH_PATTERN);
    assert.match(a, /^\$scrypt\$ln=14,r=8,p=1\$/);
    assert.notEqual(a, b, "salted");
    assert.equal(await verifyPassword("secret", a), true);
    assert.equal(await verifyPassword("Secret", a), false);
    assert.equal(await verifyPassword("secret", undefined), false, "an unknown name never passes");
  });

  const forms: [string, boolean][] = [
    ["hunter2", false],
    ["$scrypt$ln=14,r=8,p=1$c2FsdHNhbHQ$", false],
    ["$scrypt$ln=30,r=8,p=1$c2FsdHNhbHRzYWx0$a2V5a2V5a2V5a2V5a2V5a2V5", false],
    ["$scrypt$ln=14,r=8,p=1$c2FsdHNhbHRzYWx0$a2V5a2V5a2V5a2V5a2V5a2V5", true],
    ["$2b$12$abcdefghijklmnopqrstuu", false],
  ];
  for (const [s, want] of forms) {
    test(`isPasswordHash(${JSON.stringify(s)}) is ${want}`, () => assert.equal(isPasswordHash(s), want));
  }
});
