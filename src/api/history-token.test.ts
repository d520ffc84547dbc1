import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { decodeHistoryToken, encodeHistoryToken, type HistoryFilters } from "./history-token.js";

const base: HistoryFilters = { selector: "", kinds: [], oldestFirst: false };

describe("ListHistory page tokens", () => {
  it("round-trip for the same request, kinds in any order", () => {
    const f: HistoryFilters = {
      ...base,
      host: "web",
      kinds: ["StateChange", "FlappingStart"],
      since: 5,
      until: 9,
    };
    const t = encodeHistoryToken(f, 1234);
    assert.match(t, /^[A-Za-z0-9_-]+$/);
    assert.equal(decodeHistoryToken(f, t), 1234);
    assert.equal(
      decodeHistoryToken({ ...f, kinds: ["FlappingStart", "StateChange", "StateChange"] }, t),
      1234,
    );
    assert.equal(decodeHistoryToken(f, ""), undefined);
  });

  const other: [string, Partial<HistoryFilters>][] = [
    ["host", { host: "db" }],
    ["service", { service: "http" }],
    ["selector", { selector: "env=prod" }],
    ["kinds", { kinds: ["StateChange"] }],
    ["since", { since: 1 }],
    ["until", { until: 1 }],
    ["order", { oldestFirst: true }],
  ];
  for (const [name, change] of other) {
    it(`refuses a token of a request with another ${name}`, () => {
      const t = encodeHistoryToken(base, 7);
      assert.throws(
        () => decodeHistoryToken({ ...base, ...change }, t),
        (e: unknown) =>
          e instanceof ConnectError && e.code === Code.InvalidArgument && /other filters/.test(e.message),
      );
    });
  }

  for (const token of [
    "7",
    "%%%",
    Buffer.from("h1.x.7").toString("base64url"),
    Buffer.from("h1.AAAAAAAAAAAAAAAA.0").toString("base64url"),
    Buffer.from("h1.AAAAAAAAAAAAAAAA.99999999999999999").toString("base64url"),
  ]) {
    it(`refuses the malformed token ${JSON.stringify(token)}`, () => {
      assert.throws(
        () => decodeHistoryToken(base, token),
        (e: unknown) =>
          e instanceof ConnectError && e.code === Code.InvalidArgument && /malformed/.test(e.message),
      );
    });
  }
});
