import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FakeClock } from "../testing/fake-clock.js";
import { createClientAddress } from "./client-address.js";
import { cookieValue, createSessions, SESSION_TTL_MS } from "./session.js";
import {
  createLoginThrottle,
  FAILED_LOGINS_PER_ACCOUNT_PER_WINDOW,
  FAILED_LOGINS_PER_WINDOW,
  THROTTLE_WINDOW_MS,
} from "./throttle.js";

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
    t.succeeded("10.0.0.1", "alice");
    for (let i = 0; i < FAILED_LOGINS_PER_WINDOW; i++)
      assert.equal(t.attempt("10.0.0.1").ok, true, "a success resets");
  });

  test("one name is refused after its failures from many addresses, for a window at most; its known addresses are not", () => {
    const clock = new FakeClock();
    const t = createLoginThrottle(clock);
    assert.equal(t.attemptAccount("admin", "192.0.2.1").ok, true);
    t.succeeded("192.0.2.1", "admin"); // the admin's usual address
    for (let i = 0; i < FAILED_LOGINS_PER_ACCOUNT_PER_WINDOW; i++) {
      assert.equal(t.attemptAccount("admin", `10.0.${i}.1`).ok, true, `guess ${i}`);
    }
    const refused = t.attemptAccount("admin", "10.9.9.9");
    assert.ok(!refused.ok && refused.retryAfterMs > 0 && refused.retryAfterMs <= THROTTLE_WINDOW_MS);
    assert.equal(t.attemptAccount("admin", "10.0.0.1").ok, false, "from any new address");
    assert.equal(t.attemptAccount("root", "10.9.9.9").ok, true, "another name is not held back");
    assert.equal(
      t.attemptAccount("admin", "192.0.2.1").ok,
      true,
      "the admin's known address is not locked out",
    );
    clock.advance(THROTTLE_WINDOW_MS);
    assert.equal(t.attemptAccount("admin", "10.9.9.9").ok, true, "never longer than the window");
  });
});

describe("client address", () => {
  const trusted = createClientAddress(["127.0.0.1", "10.0.0.0/8", "fd00::/8"]);
  const none = createClientAddress([]);
  const cases: [string, string, string | undefined, string][] = [
    ["no trusted proxies: the peer", "127.0.0.1", "203.0.113.9", "127.0.0.1"],
    ["an untrusted peer's header is ignored", "192.0.2.5", "203.0.113.9", "192.0.2.5"],
    ["a trusted peer: the right-most hop", "127.0.0.1", "203.0.113.9", "203.0.113.9"],
    [
      "spoofed entries left of the real client are ignored",
      "127.0.0.1",
      "1.2.3.4, 203.0.113.9",
      "203.0.113.9",
    ],
    ["trusted hops are skipped", "127.0.0.1", "203.0.113.9, 10.1.1.1, 10.2.2.2", "203.0.113.9"],
    ["an IPv4-mapped peer", "::ffff:127.0.0.1", "203.0.113.9", "203.0.113.9"],
    ["ports and brackets", "127.0.0.1", "[2001:db8::1]:443", "2001:db8::1"],
    [
      "a hop that is no address stops at the last trusted one",
      "127.0.0.1",
      "203.0.113.9, junk, 10.1.1.1",
      "10.1.1.1",
    ],
    ["only trusted hops: the left-most", "127.0.0.1", "10.1.1.1, 10.2.2.2", "10.1.1.1"],
    ["a trusted peer without the header", "127.0.0.1", undefined, "127.0.0.1"],
  ];
  for (const [name, peer, xff, want] of cases) {
    test(name, () => {
      const f = name.startsWith("no trusted") ? none : trusted;
      assert.equal(f(peer, xff), want);
    });
  }
});
