import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { boundedMessage, boundGrpcMessage, MAX_STATUS_MESSAGE } from "./error-message-bound.js";

describe("error message bound", () => {
  it("keeps a message up to the bound and cuts a longer one, saying how long it was", () => {
    const cases: [name: string, message: string, want: (m: string) => boolean][] = [
      ["short", 'host "h" is not configured', (m) => m === 'host "h" is not configured'],
      ["at the bound", "a".repeat(MAX_STATUS_MESSAGE), (m) => m === "a".repeat(MAX_STATUS_MESSAGE)],
      [
        "4 MiB",
        `host "${"a".repeat(4 << 20)}"`,
        (m) => m.startsWith('host "aaa') && m.endsWith("… (4194311 characters, cut)"),
      ],
    ];
    for (const [name, message, want] of cases) {
      const m = boundedMessage(message);
      assert.ok(m.length <= MAX_STATUS_MESSAGE, `${name}: ${m.length}`);
      assert.ok(want(m), `${name}: ${m.slice(0, 60)}…${m.slice(-40)}`);
    }
  });

  it("does not split a surrogate pair", () => {
    for (let pad = 0; pad < 4; pad++) {
      const m = boundedMessage("x".repeat(pad) + "😀".repeat(MAX_STATUS_MESSAGE));
      assert.doesNotThrow(() => encodeURIComponent(m), `pad ${pad}`);
    }
  });

  it("bounds a gRPC trailer's percent-encoded grpc-message once decoded, and leaves a short one", () => {
    const cases: [name: string, raw: string | undefined, decodedMax: number][] = [
      ["none", undefined, 0],
      ["short", encodeURIComponent("not found"), 9],
      ["long", encodeURIComponent(`host "${"é".repeat(100_000)}"`), MAX_STATUS_MESSAGE],
      ["long, not percent-encoding", "%".repeat(10_000), MAX_STATUS_MESSAGE],
    ];
    for (const [name, raw, decodedMax] of cases) {
      const h = new Headers(raw === undefined ? {} : { "grpc-message": raw });
      boundGrpcMessage(h);
      const got = h.get("grpc-message");
      if (raw === undefined) assert.equal(got, null, name);
      else assert.ok(decodeURIComponent(got ?? "").length <= decodedMax, `${name}: ${got?.length}`);
      if (raw !== undefined && raw.length <= MAX_STATUS_MESSAGE) assert.equal(got, raw, name);
    }
  });
});
