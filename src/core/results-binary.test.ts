import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import fc from "fast-check";
import {
  type ProcessCheckResultRequest,
  ProcessCheckResultRequestSchema,
  ProcessCheckResultsRequestSchema,
} from "../api/gen/svc/v1/command_service_pb.js";
import { compactReference } from "../testing/compact-reference.js";
import type { CompactResult } from "./plugin-result.js";
import { decodeResultsBinary } from "./results-binary.js";

// The decoder is pinned to protobuf-es: whenever it decodes a body, protobuf-es must decode the
// same body to the same results; where it gives up, the API falls back to protobuf-es anyway.

const NOW = Date.UTC(2026, 0, 1);

const compact = (r: ProcessCheckResultRequest): CompactResult => compactReference(r, NOW);

/** protobuf-es's reading of the body: the results, or "error". */
function reference(body: Uint8Array, batch: boolean): CompactResult[] | "error" {
  try {
    return batch
      ? fromBinary(ProcessCheckResultsRequestSchema, body).results.map(compact)
      : [compact(fromBinary(ProcessCheckResultRequestSchema, body))];
  } catch {
    return "error";
  }
}

/** Decodes, checks the pin, and says whether the decoder took the body. */
function pinned(body: Uint8Array, batch = true): boolean {
  const got = decodeResultsBinary(body, batch, NOW);
  if (got === undefined) return false;
  assert.deepEqual(got, reference(body, batch), "decoded differently from protobuf-es");
  return true;
}

const batch = (results: MessageInitShape<typeof ProcessCheckResultRequestSchema>[]): Uint8Array =>
  toBinary(ProcessCheckResultsRequestSchema, create(ProcessCheckResultsRequestSchema, { results }));

/** A hand-made batch: each entry writes the fields of one result, in the order given. */
function handmade(...results: ((w: BinaryWriter) => void)[]): Uint8Array {
  const w = new BinaryWriter();
  for (const r of results) {
    w.tag(1, WireType.LengthDelimited).fork();
    r(w);
    w.join();
  }
  return w.finish();
}

const bytes = (...b: number[]): Uint8Array => new Uint8Array(b);

/** Groups of `field` (2: unknown to the batch; 6: unknown to a result) nested `depth` deep. */
function nestedGroups(depth: number, field = 2): Uint8Array {
  return new Uint8Array([
    ...new Array(depth).fill((field << 3) | 3),
    ...new Array(depth).fill((field << 3) | 4),
  ]);
}

/** Empty groups of field 16 (unknown), `size` bytes of them. */
function manyGroups(size: number): Uint8Array {
  const out = new Uint8Array(size - (size % 4));
  for (let i = 0; i < out.length; i += 4) out.set([0x83, 0x01, 0x84, 0x01], i);
  return out;
}

const cases: { name: string; body: Uint8Array; batch?: false; decoded: boolean; want?: CompactResult[] }[] = [
  {
    name: "what protobuf-es writes",
    body: batch([
      {
        host: "web",
        service: "http",
        exitStatus: 2,
        output: "CRITICAL | t=1s",
        checkedAt: { seconds: 1767225600n, nanos: 5e8 },
      },
      { host: "db", exitStatus: 0, output: "" },
      { host: "ünïcödé", service: "日本", exitStatus: 3, output: "€ 100 🙂" },
    ]),
    decoded: true,
    want: [
      ["web", "http", 2, "CRITICAL | t=1s", 1767225600500],
      ["db", null, 0, "", NOW],
      ["ünïcödé", "日本", 3, "€ 100 🙂", NOW],
    ],
  },
  { name: "an empty batch", body: bytes(), decoded: true, want: [] },
  {
    name: "fields in reverse order",
    body: handmade((w) => {
      w.tag(5, WireType.LengthDelimited)
        .fork()
        .tag(2, WireType.Varint)
        .int32(7)
        .tag(1, WireType.Varint)
        .int64(100)
        .join();
      w.tag(4, WireType.LengthDelimited).string("out");
      w.tag(3, WireType.Varint).int32(1);
      w.tag(2, WireType.LengthDelimited).string("svc");
      w.tag(1, WireType.LengthDelimited).string("h");
    }),
    decoded: true,
    want: [["h", "svc", 1, "out", 100000]],
  },
  {
    name: "unknown fields of every wire type, in the batch and in a result",
    body: (() => {
      const w = new BinaryWriter();
      w.tag(2, WireType.Varint).uint64(1n << 62n);
      w.tag(3, WireType.Bit64).fixed64(5n);
      w.tag(1, WireType.LengthDelimited).fork();
      w.tag(9, WireType.LengthDelimited).string("ignored");
      w.tag(1, WireType.LengthDelimited).string("h");
      w.tag(10, WireType.Bit32).fixed32(1);
      w.tag(5, WireType.LengthDelimited)
        .fork()
        .tag(3, WireType.Varint)
        .int32(-1)
        .tag(1, WireType.Varint)
        .int64(2)
        .join();
      w.tag(1000, WireType.Varint).int32(-5);
      w.join();
      w.tag(4, WireType.LengthDelimited).bytes(bytes(1, 2, 3));
      return w.finish();
    })(),
    decoded: true,
    want: [["h", null, 0, "", 2000]],
  },
  {
    name: "a singular field twice: the last one wins; a repeated checked_at merges",
    body: handmade((w) => {
      w.tag(1, WireType.LengthDelimited).string("first");
      w.tag(5, WireType.LengthDelimited).fork().tag(1, WireType.Varint).int64(10).join();
      w.tag(1, WireType.LengthDelimited).string("second");
      w.tag(5, WireType.LengthDelimited).fork().tag(2, WireType.Varint).int32(999_999_999).join();
      w.tag(3, WireType.Varint).int32(2).tag(3, WireType.Varint).int32(1);
    }),
    decoded: true,
    want: [["second", null, 1, "", 11000]],
  },
  {
    name: "an empty checked_at is the epoch, an empty service is given",
    body: handmade((w) => {
      w.tag(2, WireType.LengthDelimited).string("");
      w.tag(5, WireType.LengthDelimited).fork().join();
    }),
    decoded: true,
    want: [["", "", 0, "", 0]],
  },
  {
    name: "negative numbers are ten-byte varints",
    body: batch([{ host: "h", exitStatus: -1, checkedAt: { seconds: -5n, nanos: -2_000_000 } }]),
    decoded: true,
    want: [["h", null, -1, "", -5002]],
  },
  {
    name: "seconds beyond 2^53 round as Number(bigint) does",
    body: batch([{ host: "h", checkedAt: { seconds: (1n << 62n) + 12345n, nanos: 1 } }]),
    decoded: true,
  },
  {
    name: "a padded (non-minimal) varint tag and length",
    body: bytes(0x8a, 0x00, 0x83, 0x80, 0x00, 0x0a, 0x01, 0x68),
    decoded: true,
    want: [["h", null, 0, "", NOW]],
  },
  {
    name: "a byte-order mark in a string is text",
    body: batch([{ host: "\ufeffh", output: "\ufeff" }]),
    decoded: true,
    want: [["\ufeffh", null, 0, "\ufeff", NOW]],
  },
  {
    name: "one result on its own (ProcessCheckResult)",
    body: toBinary(
      ProcessCheckResultRequestSchema,
      create(ProcessCheckResultRequestSchema, { host: "h", service: "s", exitStatus: 3, output: "o" }),
    ),
    batch: false,
    decoded: true,
    want: [["h", "s", 3, "o", NOW]],
  },
  {
    name: "an empty single result",
    body: bytes(),
    batch: false,
    decoded: true,
    want: [["", null, 0, "", NOW]],
  },
  {
    name: "exit_status as a packed (length-delimited) field: left to protobuf-es",
    body: handmade((w) => w.tag(3, WireType.LengthDelimited).bytes(bytes(2))),
    decoded: false,
  },
  {
    name: "invalid UTF-8: left to protobuf-es",
    body: handmade((w) => w.tag(1, WireType.LengthDelimited).bytes(bytes(0x68, 0xc3, 0x28))),
    decoded: false,
  },
  { name: "a truncated body", body: batch([{ host: "host" }]).subarray(0, 4), decoded: false },
  {
    name: "a result whose field runs past the result's end",
    body: bytes(0x0a, 0x02, 0x0a, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f),
    decoded: false,
  },
  // Groups are skipped as protobuf-es skips them: a body of them once went back to the thread
  // serving reads, which took seconds over 4 MiB of them in protobuf-es.
  { name: "a group", body: bytes(0x13, 0x14), decoded: true, want: [] },
  {
    name: "a group holding fields of every wire type, and a group in it",
    body: bytes(
      0x13,
      0x08,
      0x01,
      0x12,
      0x01,
      0x41,
      0x1d,
      1,
      2,
      3,
      4,
      0x21,
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      0x2b,
      0x2c,
      0x14,
    ),
    decoded: true,
    want: [],
  },
  {
    name: "a group in a result",
    body: handmade((w) =>
      w
        .tag(1, WireType.LengthDelimited)
        .string("h")
        .raw(bytes(0x33, 0x08, 0x01, 0x34)),
    ),
    decoded: true,
    want: [["h", null, 0, "", NOW]],
  },
  { name: "groups nested 99 deep", body: nestedGroups(99), decoded: true, want: [] },
  { name: "groups nested 100 deep: protobuf-es refuses", body: nestedGroups(100), decoded: false },
  {
    name: "groups nested 99 deep in a result: protobuf-es refuses",
    body: handmade((w) => w.raw(nestedGroups(99, 6))),
    decoded: false,
  },
  {
    name: "groups nested 98 deep in a result",
    body: handmade((w) => w.raw(nestedGroups(98, 6))),
    decoded: true,
    want: [["", null, 0, "", NOW]],
  },
  { name: "a group ended by another field's end tag", body: bytes(0x13, 0x1c), decoded: false },
  { name: "a group that does not end", body: bytes(0x13, 0x08, 0x01), decoded: false },
  { name: "an end tag with no group", body: bytes(0x14), decoded: false },
  { name: "4 MiB of groups", body: manyGroups(4 << 20), decoded: true, want: [] },
  { name: "wire type 7", body: bytes(0x0f), decoded: false },
  { name: "field number 0", body: bytes(0x02, 0x00), decoded: false },
  {
    name: "a varint longer than ten bytes",
    body: handmade((w) => w.raw(bytes(0x18, ...new Array(10).fill(0xff), 0x01))),
    decoded: false,
  },
];

describe("decodeResultsBinary, pinned to protobuf-es", () => {
  for (const c of cases) {
    it(c.name, () => {
      const batchForm = c.batch ?? true;
      assert.equal(pinned(c.body, batchForm), c.decoded, c.decoded ? "not decoded" : "decoded");
      if (c.want !== undefined) assert.deepEqual(decodeResultsBinary(c.body, batchForm, NOW), c.want);
      if (!c.decoded) assert.equal(decodeResultsBinary(c.body, batchForm, NOW), undefined);
    });
  }

  const result = fc.record(
    {
      host: fc.string({ unit: "grapheme" }),
      service: fc.option(fc.string(), { nil: undefined }),
      exitStatus: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      output: fc.string({ unit: "binary" }),
      checkedAt: fc.option(
        fc.record({
          seconds: fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }),
          nanos: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        }),
        { nil: undefined },
      ),
    },
    { requiredKeys: ["host", "exitStatus", "output"] },
  );

  it("decodes every batch protobuf-es writes, as protobuf-es reads it", () => {
    fc.assert(
      fc.property(fc.array(result, { maxLength: 8 }), (results) => {
        assert.ok(pinned(batch(results)));
      }),
      { numRuns: 500 },
    );
  });

  it("never decodes a damaged body differently from protobuf-es", () => {
    fc.assert(
      fc.property(
        fc.array(result, { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        (results, edits, cut) => {
          const body = batch(results);
          for (const [at, value] of edits) body[at % body.length] = value;
          pinned(body.subarray(0, body.length - (cut % 3)));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
