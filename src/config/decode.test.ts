import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeConfig } from "./decode.js";
import { createLocator } from "./locate.js";
import { checkSemantics, parentCycles } from "./semantic.js";
import { checkTypes } from "./type-checks.js";

// These tests run the decode and semantic layers on plain data, the shape the CUE engine exports
// after the schema filled in defaults; loader.test.ts runs the same layers behind the real engine.

const locator = createLocator(undefined, undefined, "t.cue");

function decode(data: unknown) {
  return decodeConfig(data, createLocator(data, undefined, "t.cue"));
}

const tcp = { type: "tcp", address: "127.0.0.1:8080" };

describe("decodeConfig on plain data", () => {
  it("applies defaults, inherits zones and parses durations", () => {
    const r = decode({
      hosts: {
        web1: {
          address: "10.0.0.1",
          zone: "eu",
          check: { ...tcp, check_interval: "1m30s", flap: { alpha: 0.5 } },
          labels: { env: "prod" },
          services: {
            http: { check: { type: "http", url: "http://x/" } },
            far: { zone: "us", check: { type: "passive", freshness_threshold: "10m" } },
          },
        },
        web2: { address: "10.0.0.2", check: { type: "tls", address: "x:443" } },
      },
    });
    assert.ok(r.ok, r.ok ? "" : JSON.stringify(r.diagnostics));
    const web1 = r.config.hosts.get("web1");
    assert.ok(web1);
    assert.equal(web1.check.checkIntervalMs, 90_000);
    assert.equal(web1.check.retryIntervalMs, 15_000);
    assert.equal(web1.check.timeoutMs, 10_000);
    assert.equal(web1.check.maxAttempts, 3);
    assert.deepEqual(web1.check.flap, {
      enabled: true,
      alpha: 0.5,
      highThreshold: 0.3,
      lowThreshold: 0.15,
      notifyOnFlapStop: false,
    });
    assert.equal(web1.services.get("http")?.zone, "eu");
    assert.equal(web1.services.get("far")?.zone, "us");
    const far = web1.services.get("far")?.check;
    assert.equal(far?.type, "passive");
    if (far?.type === "passive") {
      assert.equal(far.freshnessThresholdMs, 600_000);
      assert.equal(far.staleStatus, "UNKNOWN");
    }
    const web2 = r.config.hosts.get("web2");
    assert.equal(web2?.zone, "default");
    assert.equal(web2?.check.type, "tls");
    if (web2?.check.type === "tls") assert.equal(web2.check.warnWithinMs, 336 * 3_600_000);
    assert.equal(r.config.sinks.size, 0);
  });

  it("decodes http and tls options, leaving defaults out", () => {
    const r = decode({
      hosts: {
        web1: {
          address: "10.0.0.1",
          check: tcp,
          services: {
            plain: {
              check: { type: "http", url: "http://x/", method: "GET", follow_redirects: 0, tls_verify: true },
            },
            full: {
              check: {
                type: "http",
                url: "https://x/",
                method: "POST",
                headers: { Authorization: "Bearer x" },
                body: "{}",
                expect_status: [200, "202-204"],
                expect_body: "ok",
                expect_body_regex: "^ok",
                follow_redirects: 3,
                tls_verify: false,
                ca_file: "/ca.pem",
                sni: "a.test",
                warn: "500ms",
                crit: "2s",
              },
            },
            cert: {
              check: { type: "tls", address: "x:443", verify: false, ca_file: "/ca.pem", sni: "a.test" },
            },
          },
        },
      },
    });
    assert.ok(r.ok, JSON.stringify(r.ok ? [] : r.diagnostics));
    const svc = (name: string) => r.config.hosts.get("web1")?.services.get(name)?.check;
    const {
      checkIntervalMs: _a,
      retryIntervalMs: _b,
      timeoutMs: _c,
      maxAttempts: _d,
      flap: _e,
      ...plain
    } = svc("plain") as object as Record<string, unknown>;
    assert.deepEqual(plain, { type: "http", url: "http://x/" });
    assert.deepEqual(
      { ...svc("full"), checkIntervalMs: 0, retryIntervalMs: 0, timeoutMs: 0, maxAttempts: 0, flap: null },
      {
        type: "http",
        url: "https://x/",
        method: "POST",
        followRedirects: 3,
        tlsVerify: false,
        headers: { Authorization: "Bearer x" },
        body: "{}",
        expectStatus: [
          [200, 200],
          [202, 204],
        ],
        expectBody: "ok",
        expectBodyRegex: "^ok",
        caFile: "/ca.pem",
        sni: "a.test",
        warnMs: 500,
        critMs: 2000,
        checkIntervalMs: 0,
        retryIntervalMs: 0,
        timeoutMs: 0,
        maxAttempts: 0,
        flap: null,
      },
    );
    const cert = svc("cert");
    assert.ok(cert?.type === "tls");
    assert.deepEqual([cert.verify, cert.caFile, cert.sni], [false, "/ca.pem", "a.test"]);
  });

  it("freezes objects and maps", () => {
    const r = decode({ hosts: { a: { address: "a", check: tcp, parents: [] } } });
    assert.ok(r.ok);
    const a = r.config.hosts.get("a");
    assert.ok(a);
    assert.ok(Object.isFrozen(r.config));
    assert.ok(Object.isFrozen(a));
    assert.ok(Object.isFrozen(a.check));
    assert.ok(Object.isFrozen(a.parents));
    assert.ok(Object.isFrozen(a.check.flap));
    assert.ok(Object.isFrozen(a.labels));
    assert.throws(() => (r.config.hosts as Map<string, unknown>).set("b", {}), TypeError);
    assert.throws(() => (r.config.hosts as Map<string, unknown>).delete("a"), TypeError);
  });

  it("decodes contacts, policies and sinks", () => {
    const r = decode({
      hosts: {},
      contacts: { ops: { type: "telegram", chat_id: "42" } },
      notifications: {
        oncall: {
          period: [{ weekday: "monday", start: "09:00", end: "24:00" }],
          levels: [{ contacts: ["ops"], disabled_kinds: ["RECOVERY"] }],
        },
      },
      sinks: {
        arch: { type: "archive", url: "s3://b" },
        ch: { type: "clickhouse", url: "http://ch", input: "events", batch_size: 10 },
      },
    });
    assert.ok(r.ok, r.ok ? "" : JSON.stringify(r.diagnostics));
    const ops = r.config.contacts.get("ops");
    assert.equal(ops?.type === "telegram" ? ops.chatId : undefined, "42");
    const oncall = r.config.notifications.get("oncall");
    assert.deepEqual(oncall?.period[0], {
      weekday: "monday",
      start: "09:00",
      end: "24:00",
      startMinute: 540,
      endMinute: 1440,
    });
    assert.equal(oncall?.levels[0]?.renotifyIntervalMs, 3_600_000);
    assert.equal(oncall?.levels[0]?.threshold, 0);
    const arch = r.config.sinks.get("arch");
    assert.equal(arch?.input, "events");
    assert.equal(arch?.type === "archive" ? arch.segmentBytes : 0, 67_108_864);
    const ch = r.config.sinks.get("ch");
    assert.equal(ch?.batchSize, 10);
    assert.equal(ch?.flushIntervalMs, 5000);
    assert.equal(ch?.type === "clickhouse" ? ch.table : "", "perfdata");
  });

  /** [name, data, expected message substrings in order]. */
  const bad: [string, unknown, string[]][] = [
    ["not a struct", [], ["(root): the document must be a struct"]],
    ["no hosts", {}, [`hosts: missing required field "hosts"`]],
    [
      "host without check",
      { hosts: { a: { address: "a" } } },
      [`hosts.a.check: missing required field "check"`],
    ],
    [
      "bad duration",
      { hosts: { a: { address: "a", check: { ...tcp, timeout: "10 s" } } } },
      [`hosts.a.check.timeout: invalid duration "10 s"`],
    ],
    [
      "snmp with both community and user",
      {
        hosts: {
          a: { address: "a", check: { type: "snmp", address: "a", oid: "1", community: "c", user: "u" } },
        },
      },
      ["hosts.a.check: snmp check needs exactly one of"],
    ],
    [
      "snmp expect with warn",
      {
        hosts: {
          a: {
            address: "a",
            check: { type: "snmp", address: "a", oid: "1", community: "c", expect: "up", warn: "5" },
          },
        },
      },
      [`hosts.a.check.warn: "expect" is mutually exclusive`],
    ],
    [
      "wrong scalar type",
      { hosts: { "web-1": { address: 5, check: tcp } } },
      [`hosts."web-1".address: expected a string, found 5`],
    ],
    [
      "unknown type on plain data",
      { hosts: { a: { address: "a", check: { type: "htp" } } } },
      [`hosts.a.check.type: unknown check type "htp"; allowed types: command, dns`],
    ],
  ];
  for (const [name, data, want] of bad) {
    it(`rejects: ${name}`, () => {
      const r = decode(data);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.deepEqual(
        r.diagnostics.map((d, i) => d.message.includes(want[i] ?? "\0") || d.message),
        want.map(() => true),
      );
    });
  }
});

describe("checkSemantics", () => {
  const base = {
    commands: { ping: { line: "ping $HOSTADDRESS$" } },
    contacts: { ops: { type: "email", address: "ops@example.com" } },
    notifications: { oncall: { levels: [{ contacts: ["ops"] }] } },
  };
  /** [name, document additions, expected messages (substrings, sorted order of the checks)]. */
  const cases: [string, Record<string, unknown>, string[]][] = [
    ["a consistent document", { hosts: { a: { address: "a", check: tcp, notification: "oncall" } } }, []],
    [
      "unknown command in a check",
      { hosts: { a: { address: "a", check: { type: "command", command: "pong" } } } },
      [`hosts.a.check.command: unknown command "pong"; defined: ping`],
    ],
    [
      "unknown command in a service check",
      {
        hosts: {
          a: { address: "a", check: tcp, services: { s: { check: { type: "command", command: "x" } } } },
        },
      },
      [`hosts.a.services.s.check.command: unknown command "x"`],
    ],
    [
      "unknown command in a contact",
      { hosts: {}, contacts: { ...base.contacts, c: { type: "command", command: "mail" } } },
      [`contacts.c.command: unknown command "mail"`],
    ],
    [
      "unknown policy",
      { hosts: { a: { address: "a", check: tcp, notification: "pager" } } },
      [`hosts.a.notification: unknown notification policy "pager"; defined: oncall`],
    ],
    [
      "unknown policy on a service",
      { hosts: { a: { address: "a", check: tcp, services: { s: { check: tcp, notification: "x" } } } } },
      [`hosts.a.services.s.notification: unknown notification policy "x"`],
    ],
    [
      "unknown escalation contact",
      { hosts: {}, notifications: { p: { levels: [{ contacts: ["ops", "bob"] }] } } },
      [`notifications.p.levels.0.contacts.1: unknown contact "bob"; defined: ops`],
    ],
    [
      "unknown parent",
      { hosts: { a: { address: "a", check: tcp, parents: ["gw"] } } },
      [`hosts.a.parents.0: unknown parent host "gw"`],
    ],
    [
      "self parent",
      { hosts: { a: { address: "a", check: tcp, parents: ["a"] } } },
      ["hosts.a.parents.0: parent cycle: a -> a"],
    ],
    [
      "parent cycle",
      {
        hosts: {
          a: { address: "a", check: tcp, parents: ["b"] },
          b: { address: "b", check: tcp, parents: ["c"] },
          c: { address: "c", check: tcp, parents: ["a"] },
          d: { address: "d", check: tcp, parents: ["a"] },
        },
      },
      ["hosts.a.parents.0: parent cycle: a -> b -> c -> a"],
    ],
    [
      "bad view selector",
      { hosts: {}, views: { prod: { selector: "env in ()" } } },
      [
        `views.prod.selector: invalid selector "env in ()": expected at least one value in the list (at column 9`,
      ],
    ],
    [
      "bad sink selector",
      { hosts: {}, sinks: { s: { type: "http", url: "http://x", selector: "Env=x" } } },
      [`sinks.s.selector: invalid selector "Env=x": invalid label key "Env"`],
    ],
    [
      "window end before start",
      {
        hosts: {},
        notifications: {
          p: {
            period: [{ weekday: "monday", start: "18:00", end: "09:00" }],
            levels: [{ contacts: ["ops"] }],
          },
        },
      },
      [`notifications.p.period.0.end: end "09:00" must be after start "18:00"`],
    ],
    [
      "window end equal to start",
      {
        hosts: {},
        notifications: {
          p: {
            period: [{ weekday: "monday", start: "09:00", end: "09:00" }],
            levels: [{ contacts: ["ops"] }],
          },
        },
      },
      [`notifications.p.period.0.end: end "09:00" must be after start`],
    ],
    [
      "window end past 24:00",
      {
        hosts: {},
        notifications: {
          p: {
            period: [{ weekday: "monday", start: "09:00", end: "24:30" }],
            levels: [{ contacts: ["ops"] }],
          },
        },
      },
      [`notifications.p.period.0.end: end "24:30" is past 24:00`],
    ],
  ];
  for (const [name, doc, want] of cases) {
    it(name, () => {
      const r = decode({ ...base, ...doc });
      assert.ok(r.ok, r.ok ? "" : JSON.stringify(r.diagnostics));
      const got = checkSemantics(r.config, locator).map((d) => d.message);
      assert.equal(got.length, want.length, JSON.stringify(got));
      for (const [i, w] of want.entries()) assert.ok(got[i]?.includes(w), `${got[i]} lacks ${w}`);
    });
  }

  it("finds each cycle once in a long chain without overflowing the stack", () => {
    const hosts: Record<string, unknown> = {};
    const n = 50_000;
    for (let i = 0; i < n; i++) hosts[`h${i}`] = { address: "x", check: tcp, parents: [`h${(i + 1) % n}`] };
    const r = decode({ hosts });
    assert.ok(r.ok);
    const cycles = parentCycles(r.config);
    assert.equal(cycles.length, 1);
    assert.equal(cycles[0]?.length, n + 1);
  });
});

describe("checkTypes", () => {
  const doc = {
    hosts: {
      a: {
        check: { type: "command", command: "x" },
        services: {
          s: { check: { type: "htp" } },
          t: { check: { url: "x" } },
          u: { check: { type: "legacy" } },
        },
      },
    },
    commands: { x: { line: "true" } },
    contacts: { c: { type: "pager" }, w: { type: "webhook", url: "file:///etc/passwd" } },
    sinks: { e: { type: "exec", command: ["x"] }, f: { type: "kafka" } },
  };
  /** [profile, expected messages]. */
  const cases: [undefined | "demo", string[]][] = [
    [
      undefined,
      [
        `unknown check type "htp"; allowed types: command, dns, http, icmp, legacy, passive, snmp, tcp, tls, wasm`,
        "missing check type; allowed types: command,",
        `unknown contact type "pager"; allowed types: command, email, telegram, webhook`,
        `unknown sink type "kafka"; allowed types: archive, clickhouse, exec, file, http, otlp, remote_write`,
      ],
    ],
    [
      "demo",
      [
        `check type "command" is not supported under -config-profile demo; allowed types: dns, http, icmp, passive, snmp, tcp, tls`,
        `unknown check type "htp"; allowed types: dns, http, icmp, passive, snmp, tcp, tls`,
        "missing check type; allowed types: dns,",
        `check type "legacy" is not supported under -config-profile demo`,
        `unknown contact type "pager"; allowed types: email, telegram, webhook`,
        `"file:" URLs are not supported under -config-profile demo`,
        `sink type "exec" is not supported under -config-profile demo; allowed types: archive, clickhouse, http, otlp, remote_write`,
        `unknown sink type "kafka"`,
        "a non-empty commands block is not supported under -config-profile demo",
      ],
    ],
  ];
  for (const [profile, want] of cases) {
    it(`profile ${profile ?? "default"}`, () => {
      const got = checkTypes(doc, profile).map((r) => r.message);
      assert.equal(got.length, want.length, JSON.stringify(got, null, 1));
      for (const [i, w] of want.entries()) assert.ok(got[i]?.includes(w), `${got[i]} lacks ${w}`);
    });
  }
});
