import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, fromJsonString, type MessageInitShape, toJsonString } from "@bufbuild/protobuf";
import fc from "fast-check";
import {
  type ProcessCheckResultRequest,
  ProcessCheckResultRequestSchema,
  ProcessCheckResultsRequestSchema,
} from "../api/gen/svc/v1/command_service_pb.js";
import { compactReference } from "../testing/compact-reference.js";
import type { CompactResult } from "./plugin-result.js";
import { decodeResultsJson } from "./results-json.js";

// The decoder is pinned to protobuf-es with Connect's JSON options (unknown fields ignored):
// whenever it decodes a text, protobuf-es must read the same results from it; where it gives up,
// the API falls back to protobuf-es anyway.

const NOW = Date.UTC(2026, 0, 1);
const OPTIONS = { ignoreUnknownFields: true };

const compact = (r: ProcessCheckResultRequest): CompactResult => compactReference(r, NOW);

function reference(text: string, batch: boolean): CompactResult[] | "error" {
  try {
    return batch
      ? fromJsonString(ProcessCheckResultsRequestSchema, text, OPTIONS).results.map(compact)
      : [compact(fromJsonString(ProcessCheckResultRequestSchema, text, OPTIONS))];
  } catch {
    return "error";
  }
}

function pinned(text: string, batch = true): boolean {
  const got = decodeResultsJson(text, batch, NOW);
  if (got === undefined) return false;
  assert.deepEqual(got, reference(text, batch), "decoded differently from protobuf-es");
  return true;
}

const cases: { name: string; text: string; batch?: false; decoded: boolean; want?: CompactResult[] }[] = [
  {
    name: "what protobuf-es writes",
    text: toJsonString(
      ProcessCheckResultsRequestSchema,
      create(ProcessCheckResultsRequestSchema, {
        results: [
          {
            host: "web",
            service: "http",
            exitStatus: 2,
            output: "CRIT | t=1s",
            checkedAt: { seconds: 1767225600n },
          },
          { host: "db", output: '"quoted"\n\ttabbed \u0001 é 🙂' },
        ],
      }),
    ),
    decoded: true,
    want: [
      ["web", "http", 2, "CRIT | t=1s", 1767225600000],
      ["db", null, 0, '"quoted"\n\ttabbed \u0001 é 🙂', NOW],
    ],
  },
  {
    name: "proto field names and whitespace everywhere",
    text: ' \n{ "results" :\t[ { "host" : "h" , "exit_status" : 1 , "checked_at" : "2026-01-01T00:00:01Z" } ] }\r\n',
    decoded: true,
    want: [["h", null, 1, "", NOW + 1000]],
  },
  { name: "an empty request", text: "{}", decoded: true, want: [] },
  { name: "results null", text: '{"results":null}', decoded: true, want: [] },
  { name: "an empty list", text: '{"results":[]}', decoded: true, want: [] },
  {
    name: "null resets every field",
    text: '{"results":[{"host":null,"service":null,"exitStatus":null,"output":null,"checkedAt":null}]}',
    decoded: true,
    want: [["", null, 0, "", NOW]],
  },
  {
    name: "exit status as a string, in exponent form, as 2.0",
    text: '{"results":[{"exitStatus":"2"},{"exitStatus":1e0},{"exitStatus":2.0},{"exitStatus":"-7"},{"exitStatus":"0x3"}]}',
    decoded: true,
    want: [
      ["", null, 2, "", NOW],
      ["", null, 1, "", NOW],
      ["", null, 2, "", NOW],
      ["", null, -7, "", NOW],
      ["", null, 3, "", NOW],
    ],
  },
  {
    name: "times with offsets and fractions (rounded to milliseconds)",
    text:
      '{"results":[{"checkedAt":"2026-01-01T02:00:00+02:00"},{"checkedAt":"2026-01-01T00:00:00.0005Z"},' +
      '{"checkedAt":"2026-01-01T00:00:00.123456789Z"},{"checkedAt":"1969-12-31T23:59:59.5Z"}]}',
    decoded: true,
    want: [
      ["", null, 0, "", NOW],
      ["", null, 0, "", NOW + 1],
      ["", null, 0, "", NOW + 123],
      ["", null, 0, "", -500],
    ],
  },
  {
    name: "times at the edges of the calendar (leap days, rolled-over dates, 24:00, every fraction length)",
    text: JSON.stringify({
      results: [
        "2024-02-29T23:59:59Z",
        "2023-02-29T00:00:00Z",
        "2026-04-31T00:00:00Z",
        "2100-02-29T00:00:00Z",
        "2000-02-29T00:00:00.1Z",
        "2026-12-31T24:00:00Z",
        "1000-01-01T00:00:00.12Z",
        "0999-12-31T23:59:59.123Z",
        "0001-01-01T00:00:00.1234Z",
        "9999-12-31T23:59:59.12345Z",
        "2026-01-01T00:00:00.123456Z",
        "2026-01-01T00:00:00.1234567Z",
        "2026-01-01T00:00:00.12345678Z",
        "2026-01-01T00:00:00.999999999Z",
        "2026-01-01T00:00:00.9995Z",
      ].map((checkedAt) => ({ checkedAt })),
    }),
    decoded: true,
  },
  {
    name: "escapes in strings and keys",
    text: '{"results":[{"\\u0068ost":"a\\u00e9\\n\\"\\\\\\/\\ud83d\\ude42"}]}',
    decoded: true,
    want: [['a\u00e9\n"\\/\u{1f642}', null, 0, "", NOW]],
  },
  {
    name: "one result on its own (ProcessCheckResult)",
    text: '{"host":"h","service":"s","exitStatus":3,"output":"o"}',
    batch: false,
    decoded: true,
    want: [["h", "s", 3, "o", NOW]],
  },
  {
    name: "an exit status out of int32 range",
    text: '{"results":[{"exitStatus":2147483648}]}',
    decoded: false,
  },
  { name: "a fractional exit status", text: '{"results":[{"exitStatus":2.5}]}', decoded: false },
  { name: "a numeric string with spaces", text: '{"results":[{"exitStatus":" 2"}]}', decoded: false },
  { name: "a boolean exit status", text: '{"results":[{"exitStatus":true}]}', decoded: false },
  { name: "a number for a string field", text: '{"results":[{"host":5}]}', decoded: false },
  {
    name: "a field by both its names",
    text: '{"results":[{"exitStatus":1,"exit_status":2}]}',
    decoded: false,
  },
  { name: "a duplicate key", text: '{"results":[{"host":"a","host":"b"}]}', decoded: false },
  { name: "results twice", text: '{"results":[],"results":[]}', decoded: false },
  {
    name: "an unknown key (left to protobuf-es)",
    text: '{"results":[{"host":"a","extra":{"x":1}}]}',
    decoded: false,
  },
  { name: "a null result", text: '{"results":[null]}', decoded: false },
  { name: "a lone surrogate", text: '{"results":[{"host":"\\ud800"}]}', decoded: false },
  { name: "a raw control character", text: '{"results":[{"host":"a\tb"}]}', decoded: false },
  {
    name: "a time without a zone",
    text: '{"results":[{"checkedAt":"2026-01-01T00:00:00"}]}',
    decoded: false,
  },
  {
    name: "a time before year 1",
    text: '{"results":[{"checkedAt":"0000-12-31T00:00:00Z"}]}',
    decoded: false,
  },
  { name: "a time as a number", text: '{"results":[{"checkedAt":5}]}', decoded: false },
  { name: "invalid JSON", text: '{"results":[{"host":"a",}]}', decoded: false },
  { name: "trailing text", text: '{"results":[]} x', decoded: false },
  { name: "an array at the top", text: "[]", decoded: false },
  { name: "a leading zero", text: '{"results":[{"exitStatus":01}]}', decoded: false },
];

describe("decodeResultsJson, pinned to protobuf-es", () => {
  for (const c of cases) {
    it(c.name, () => {
      const batchForm = c.batch ?? true;
      assert.equal(pinned(c.text, batchForm), c.decoded, c.decoded ? "not decoded" : "decoded");
      if (c.want !== undefined) assert.deepEqual(decodeResultsJson(c.text, batchForm, NOW), c.want);
    });
  }

  const result = fc.record(
    {
      host: fc.string({ unit: "grapheme" }),
      service: fc.option(fc.string(), { nil: undefined }),
      exitStatus: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      output: fc.string({ unit: "grapheme-composite" }),
      checkedAt: fc.option(
        fc.record({
          seconds: fc.bigInt({ min: -62135596800n, max: 253402300799n }),
          nanos: fc.integer({ min: 0, max: 999_999_999 }),
        }),
        { nil: undefined },
      ),
    },
    { requiredKeys: ["host", "exitStatus", "output"] },
  );

  it("decodes every batch protobuf-es writes, as protobuf-es reads it", () => {
    fc.assert(
      fc.property(fc.array(result, { maxLength: 6 }), fc.boolean(), (results, protoNames) => {
        const m = create(ProcessCheckResultsRequestSchema, {
          results: results as MessageInitShape<typeof ProcessCheckResultRequestSchema>[],
        });
        assert.ok(
          pinned(toJsonString(ProcessCheckResultsRequestSchema, m, { useProtoFieldName: protoNames })),
        );
      }),
      { numRuns: 300 },
    );
  });

  // Objects with the message's keys (and a few others) and values of every JSON type.
  const value = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(
      null,
      true,
      false,
      "2",
      " 1",
      "1e1",
      "",
      "2026-01-01T00:00:00Z",
      "2026-01-01T00:00:00.5+01:00",
    ),
    fc.array(fc.integer(), { maxLength: 2 }),
  );
  const key = fc.constantFrom(
    "host",
    "service",
    "exitStatus",
    "exit_status",
    "output",
    "checkedAt",
    "checked_at",
    "other",
  );
  const loose = fc.dictionary(key, value, { maxKeys: 5 });

  it("never decodes other JSON differently from protobuf-es", () => {
    fc.assert(
      fc.property(fc.array(loose, { maxLength: 4 }), fc.boolean(), (results, single) => {
        if (single) pinned(JSON.stringify(results[0] ?? {}), false);
        else pinned(JSON.stringify({ results }));
      }),
      { numRuns: 2000 },
    );
  });
});
