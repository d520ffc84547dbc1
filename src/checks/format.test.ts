import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { abortOutcome, describeNetError, describeTlsVerifyError, oneLine, parseHostPort } from "./format.js";

describe("parseHostPort", () => {
  const table: [string, number | undefined, { host: string; port: number } | undefined][] = [
    ["127.0.0.1:8080", undefined, { host: "127.0.0.1", port: 8080 }],
    ["db1.example.test:5432", undefined, { host: "db1.example.test", port: 5432 }],
    ["[::1]:443", undefined, { host: "::1", port: 443 }],
    ["[fe80::1%eth0]:22", undefined, { host: "fe80::1%eth0", port: 22 }],
    ["127.0.0.1", undefined, undefined],
    ["127.0.0.1", 53, { host: "127.0.0.1", port: 53 }],
    ["[::1]", 443, { host: "::1", port: 443 }],
    ["::1", 443, { host: "::1", port: 443 }],
    ["::1", undefined, undefined],
    ["host:0", undefined, undefined],
    ["host:65535", undefined, { host: "host", port: 65535 }],
    ["host:65536", undefined, undefined],
    ["host:-1", undefined, undefined],
    ["host:80x", undefined, undefined],
    ["host:", undefined, undefined],
    [":80", undefined, undefined],
    ["[]:80", undefined, undefined],
    ["[::1]80", undefined, undefined],
    ["a b:80", undefined, undefined],
    ["a/b:80", undefined, undefined],
    ["", 80, undefined],
  ];
  for (const [input, defaultPort, want] of table) {
    it(`${JSON.stringify(input)}${defaultPort === undefined ? "" : ` (default ${defaultPort})`}`, () => {
      assert.deepEqual(parseHostPort(input, defaultPort), want);
    });
  }
});

describe("output text helpers", () => {
  const table: [string, string, string][] = [
    ["oneLine keeps plain text", oneLine("Connection refused"), "Connection refused"],
    ["oneLine joins lines", oneLine("a\r\n  b\nc"), "a b c"],
    ["oneLine drops the perfdata separator", oneLine("Fine | Dandy"), "Fine / Dandy"],
    [
      "refused",
      describeNetError(Object.assign(new Error("x"), { code: "ECONNREFUSED" })),
      "Connection refused",
    ],
    [
      "unreachable",
      describeNetError(Object.assign(new Error("x"), { code: "EHOSTUNREACH" })),
      "No route to host",
    ],
    [
      "unknown code keeps the message",
      describeNetError(Object.assign(new Error("odd\nthing"), { code: "EWHAT" })),
      "odd thing",
    ],
    ["not an error", describeNetError("plain"), "plain"],
    [
      "self-signed",
      describeTlsVerifyError({ code: "DEPTH_ZERO_SELF_SIGNED_CERT" }) ?? "",
      "self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)",
    ],
    [
      "host name",
      describeTlsVerifyError({
        code: "ERR_TLS_CERT_ALTNAME_INVALID",
        cert: { subjectaltname: "DNS:a.test, IP Address:10.0.0.1" },
      }) ?? "",
      "certificate does not match the host name (certificate names DNS:a.test, IP:10.0.0.1)",
    ],
    ["not a TLS error", String(describeTlsVerifyError({ code: "ECONNREFUSED" })), "undefined"],
  ];
  for (const [name, got, want] of table) {
    it(name, () => assert.equal(got, want));
  }
});

describe("abortOutcome", () => {
  const table: [string, unknown, number, RegExp][] = [
    [
      "timeout",
      new DOMException("t", "TimeoutError"),
      2,
      /^X CRITICAL - connect: timed out after \d+\.\d{3} seconds$/,
    ],
    ["shutdown", new Error("shutdown"), 3, /^X UNKNOWN - connect: check aborted after \d+\.\d{3} seconds$/],
    ["no reason", undefined, 3, /^X UNKNOWN - /],
  ];
  for (const [name, reason, status, output] of table) {
    it(name, () => {
      const ac = new AbortController();
      ac.abort(reason);
      const o = abortOutcome("X", ac.signal, "connect", performance.now());
      assert.equal(o.exitStatus, status);
      assert.match(o.output, output);
      assert.deepEqual(o.perfdata, []);
    });
  }
});
