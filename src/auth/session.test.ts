import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FakeClock } from "../testing/fake-clock.js";
import { cookieValue, createSessions, SESSION_TTL_MS } from "./session.js";
import { createLoginThrottle, FAILED_LOGINS_PER_WINDOW, THROTTLE_WINDOW_MS } from "./throttle.js";

describe("sessions", () => {
  test("a cookie verifies until it expires, is refused once logged out, and not under another secret", () => {
    const clock = new FakeClock();
    const s = createSessions("secret", clock);
    const { value, claims } = s.issue("alice");
    assert.equal(s.verify(value)?.name, "alice");
    assert.equal(createSessions("rotated", clock).verify(value), undefined, "rotating the secret ends it");
    const tampered = `${Buffer.from(JSON.stringify({ n: "root", e: claims.expires, i: claims.id })).toString("base64url")}.${value.split(".")[1]}`;
    assert.equal(s.verify(tampered), undefined, "another payload under the same mac");
    assert.equal(s.verify("garbage"), undefined);
    clock.advance(SESSION_TTL_MS - 1);
    assert.equal(s.verify(value)?.name, "alice");
    clock.advance(1);
    assert.equal(s.verify(value), undefined, "expired");
    const second = s.issue("bob");
    s.revoke(second.claims);
    assert.equal(s.verify(second.value), undefined, "logged out");
  });

  test("cookieValue finds one cookie among several", () => {
    assert.equal(cookieValue("a=1; lookout_session=x.y; b=2", "lookout_session"), "x.y");
    assert.equal(cookieValue("a=1", "lookout_session"), undefined);
    assert.equal(cookieValue(undefined, "lookout_session"), undefined);
  });
});

describe("login throttle", () => {
  test("a peer is refused after the failures of a window, until it ends; others are not", () => {
    const clock = new FakeClock();
    const t = createLoginThrottle(clock);
    for (let i = 0; i < FAILED_LOGINS_PER_WINDOW; i++) assert.equal(t.attempt("10.0.0.1").ok, true);
    const refused = t.attempt("10.0.0.1");
    assert.equal(refused.ok, false, "attempts still running count: concurrent ones cannot all pass");
    assert.equal(t.attempt("10.0.0.2").ok, true);
    clock.advance(THROTTLE_WINDOW_MS);
    assert.equal(t.attempt("10.0.0.1").ok, true);
    t.succeeded("10.0.0.1");
    for (let i = 0; i < FAILED_LOGINS_PER_WINDOW; i++)
      assert.equal(t.attempt("10.0.0.1").ok, true, "a success resets");
  });
});
