import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  decodeGroup,
  decodeSnapshot,
  encodeGroup,
  encodeSnapshot,
  type LogGroup,
  type PublishedSnapshot,
  UnreadableGroupError,
} from "./replicated-log.js";

const text = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array) => new TextDecoder().decode(b);

describe("command log groups", () => {
  it("round-trips rows, configs and sources without touching their bytes", () => {
    const g: LogGroup = {
      origin: "srv-1-abc",
      n: 42,
      rows: [
        { at: 1_700_000_000_000, body: text('[{"type":"Tick"}]') },
        { at: 1_700_000_000_001, body: text('[1700000000005,{"type":"ProcessCheckResult","é":"ü"}]') },
      ],
      configs: [{ digest: "d1", body: text('{"hosts":[]}') }],
      sources: [{ digest: "d1", body: text('hosts: {}\n// "quoted" \\ text\n') }],
    };
    const back = decodeGroup(encodeGroup(g));
    assert.equal(back.origin, g.origin);
    assert.equal(back.n, 42);
    assert.deepEqual(
      back.rows.map((r) => [r.at, str(r.body)]),
      g.rows.map((r) => [r.at, str(r.body)]),
    );
    assert.deepEqual(
      back.configs.map((c) => [c.digest, str(c.body)]),
      [["d1", '{"hosts":[]}']],
    );
    assert.deepEqual(
      back.sources.map((c) => [c.digest, str(c.body)]),
      [["d1", 'hosts: {}\n// "quoted" \\ text\n']],
    );
  });

  const good = encodeGroup({
    origin: "o",
    n: 1,
    rows: [{ at: 1, body: text("[]") }],
    configs: [],
    sources: [],
  });
  const withHeader = (header: string): Uint8Array => {
    const h = text(header);
    const out = new Uint8Array(8 + h.length);
    const v = new DataView(out.buffer);
    v.setUint32(0, 0x4c4b4331);
    v.setUint32(4, h.length);
    out.set(h, 8);
    return out;
  };
  const cases: [string, Uint8Array, RegExp][] = [
    ["too short", new Uint8Array(3), /too short/],
    ["not a group", text("hello world, not a group"), /not a Lookout command group/],
    [
      "a newer format",
      withHeader('{"v":2,"o":"o","n":1,"rows":[],"configs":[],"sources":[]}'),
      /format 2; this build reads format 1/,
    ],
    ["a header that is not JSON", withHeader("{nope"), /not JSON/],
    ["a missing field", withHeader('{"v":1,"o":"o","n":1,"rows":[]}'), /lacks a field/],
    ["a part cut short", good.subarray(0, good.length - 1), /cut short/],
    ["bytes past the parts", new Uint8Array([...good, 0]), /bytes past its parts/],
  ];
  for (const [name, bytes, message] of cases) {
    it(`refuses ${name} with a clear error`, () => {
      assert.throws(
        () => decodeGroup(bytes),
        (e: unknown) => e instanceof UnreadableGroupError && message.test(e.message),
      );
    });
  }
});

describe("published snapshots", () => {
  const snap: PublishedSnapshot = {
    position: 120,
    eventSeq: 4_000,
    configDigest: "abc",
    config: '{"hosts":{"é":{}}}',
    body: '{"engine":"…"}',
  };
  it("round-trips", () => {
    assert.deepEqual(decodeSnapshot(encodeSnapshot(snap)), snap);
  });
  const good = encodeSnapshot(snap);
  const withHeader = (header: string): Uint8Array => {
    const h = text(header);
    const out = new Uint8Array(8 + h.length);
    const v = new DataView(out.buffer);
    v.setUint32(0, 0x4c4b5331);
    v.setUint32(4, h.length);
    out.set(h, 8);
    return out;
  };
  const cases: [string, Uint8Array, RegExp][] = [
    ["too short", new Uint8Array(5), /a snapshot of 5 bytes is too short/],
    [
      "a group, not a snapshot",
      encodeGroup({ origin: "o", n: 1, rows: [], configs: [], sources: [] }),
      /not a Lookout snapshot/,
    ],
    ["a newer format", withHeader('{"v":2}'), /the snapshot is in format 2; this build reads format 1/],
    ["a header that is not JSON", withHeader("[1,"), /the snapshot's header is not JSON/],
    ["a header that is not an object", withHeader("[1]"), /not a JSON object/],
    ["a body cut short", good.subarray(0, good.length - 1), /does not match its bytes/],
  ];
  for (const [name, bytes, message] of cases) {
    it(`refuses ${name} with a clear error`, () => {
      assert.throws(
        () => decodeSnapshot(bytes),
        (e: unknown) => e instanceof UnreadableGroupError && message.test(e.message),
      );
    });
  }
});
