import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import { fleetConfig } from "../core/fleet-config.js";
import type { Config, HostConfig, ServiceConfig } from "../model/config.js";
import { createObjectIndex } from "../store/object-index.js";
import { createProjection } from "../store/projection.js";
import type { StatusRecord } from "../store/records.js";
import { encodeStatus } from "../store/status-codec.js";
import { ListStatusResponseSchema } from "./gen/svc/v1/query_service_pb.js";
import { objectStatus } from "./status-message.js";
import { encodedStatusPage, isBinaryContentType, statusPageBytes } from "./status-page.js";

const T = Date.UTC(2026, 0, 1, 12, 0, 0, 123);

/** Three hosts of three services; host-00001's svc-001 overrides a host label and adds its own. */
function config(): Config {
  const base = fleetConfig({ hosts: 3, servicesPerHost: 3 });
  const h = base.hosts.get("host-00001") as HostConfig;
  const services = new Map(h.services);
  const s = services.get("svc-001") as ServiceConfig;
  services.set("svc-001", { ...s, labels: { rack: "r9", tier: "db", owner: "ops" } });
  return { ...base, hosts: new Map([...base.hosts, ["host-00001", { ...h, services }]]) };
}
const index = createObjectIndex(config());

const record = (key: string, over: Partial<StatusRecord> = {}): StatusRecord => ({
  key,
  state: "OK",
  stateType: "HARD",
  attempt: 1,
  maxAttempts: 3,
  output: "OK - fine",
  longOutput: "",
  perfdata: [{ label: "time", value: 0.012, uom: "s", warn: "1", crit: "2", min: 0 }],
  lastCheck: T,
  lastStateChange: T - 5000,
  flapping: false,
  flapPercent: 0,
  inDowntime: false,
  ...over,
});

/** Rows by position in the index, with the record each has (undefined: PENDING). */
const cases: { name: string; rows: [number, Partial<StatusRecord> | undefined][] }[] = [
  { name: "an empty page", rows: [] },
  { name: "one PENDING host", rows: [[0, undefined]] },
  { name: "one service with a result", rows: [[1, {}]] },
  {
    name: "a mix: pending, problems, acknowledged, in downtime, long output",
    rows: [
      [0, { state: "DOWN", stateType: "SOFT", attempt: 2 }],
      [1, undefined],
      [
        2,
        {
          state: "CRITICAL",
          acknowledgement: { author: "ops", comment: "known", sticky: false, setAt: T - 100 },
          flapping: true,
          flapPercent: 33.3,
        },
      ],
      [3, { inDowntime: true, longOutput: "x".repeat(500), lastHardStateChange: T - 9000 }],
      [4, undefined],
      [7, { perfdata: [], output: "" }],
    ],
  },
  {
    name: "checked by workers: short and long names, beside records without one",
    rows: [
      [1, { checkedBy: "w1" }],
      [2, {}],
      [
        3,
        {
          checkedBy: `wörker-${"x".repeat(300)}`,
          acknowledgement: { author: "a", comment: "", sticky: true, setAt: T },
        },
      ],
      [0, undefined],
      [6, { checkedBy: "dc2-7", inDowntime: true }],
    ],
  },
  {
    name: "switches turned off, with and without a worker's name",
    rows: [
      [1, { notificationsDisabled: true }],
      [2, { checkedBy: "w1", activeChecksDisabled: true, flapDetectionDisabled: true }],
      [
        3,
        {
          activeChecksDisabled: true,
          passiveChecksDisabled: true,
          notificationsDisabled: true,
          flapDetectionDisabled: true,
        },
      ],
      [4, {}],
    ],
  },
  {
    name: "a service whose labels override its host's",
    rows: [
      [6, {}],
      [5, undefined],
    ],
  },
];

describe("ListStatus page spliced from encoded records", () => {
  for (const c of cases) {
    it(`is byte for byte the page built from messages: ${c.name}`, () => {
      const rows = c.rows.map(([i, over]) => {
        const entry = index.entry(i);
        const r = over === undefined ? undefined : record(entry.key, over);
        return { i, entry, record: r, encoded: r === undefined ? undefined : encodeStatus(r) };
      });
      // A real projection: the records are copied out of its arena.
      const projection = createProjection();
      const held = rows.filter((r) => r.encoded !== undefined);
      projection.applyDelta({
        eventSeq: 1,
        removed: [],
        statusKeys: held.map((r) => r.entry.key),
        statuses: held.map((r) => r.encoded as string),
        patches: [],
        history: [],
        downtimesAdded: [],
        downtimesRemoved: [],
      });
      const positions = rows.map((r) => r.i);
      const spliced = toBinary(
        ListStatusResponseSchema,
        encodedStatusPage(index, projection, positions, "", 0),
      );
      const built = toBinary(
        ListStatusResponseSchema,
        create(ListStatusResponseSchema, { statuses: rows.map((r) => objectStatus(r.entry, r.record)) }),
      );
      assert.deepEqual(Buffer.from(spliced), Buffer.from(built));
      // Again, from the configured fields the first call encoded and kept.
      const again = toBinary(
        ListStatusResponseSchema,
        encodedStatusPage(index, projection, positions, "", 0),
      );
      assert.deepEqual(Buffer.from(again), Buffer.from(built));

      // With the other fields set, the message a client decodes is the same.
      const page = encodedStatusPage(index, projection, positions, "next", 42);
      const expected = create(ListStatusResponseSchema, {
        statuses: rows.map((r) => objectStatus(r.entry, r.record)),
        nextPageToken: "next",
        totalSize: 42,
      });
      const decoded = fromBinary(ListStatusResponseSchema, toBinary(ListStatusResponseSchema, page));
      assert.ok(equals(ListStatusResponseSchema, decoded, expected));
      assert.equal(decoded.statuses.length, rows.length);

      // The whole response in one buffer, after a prefix left as it was: what protobuf-es writes.
      const whole = statusPageBytes(index, projection, positions, "next", 42, 5);
      assert.deepEqual(whole.subarray(5), Buffer.from(toBinary(ListStatusResponseSchema, expected)));
    });
  }

  // Pages remember where each object's record is (by position, per index and projection); these
  // steps change the projection under them, and every page must still be the one built from messages.
  const key = (i: number): string => index.entry(i).key;
  const steps: { name: string; set?: [number, Partial<StatusRecord>][]; remove?: number[] }[] = [
    {
      name: "first results",
      set: [
        [1, {}],
        [2, { state: "WARNING" }],
      ],
    },
    { name: "a record replaced by a longer one", set: [[1, { output: "y".repeat(400) }]] },
    { name: "a PENDING object gets a record", set: [[0, { state: "DOWN" }]] },
    { name: "an object loses its record", remove: [1] },
    { name: "another object takes the freed place", set: [[3, { output: "in the freed slot" }]] },
    { name: "the object that lost its record gets one again", set: [[1, { state: "CRITICAL" }]] },
    { name: "a worker runs a check", set: [[2, { state: "OK", checkedBy: "w1" }]] },
    { name: "another worker, a longer name", set: [[2, { checkedBy: "w-two-with-a-longer-name" }]] },
    { name: "notifications switched off", set: [[2, { checkedBy: "w1", notificationsDisabled: true }]] },
    { name: "this server runs it again", set: [[2, {}]] },
    { name: "nothing changes", set: [] },
  ];
  it("follows the projection as records are replaced, added and removed", () => {
    const projection = createProjection();
    const held = new Map<number, StatusRecord>();
    const positions = [0, 1, 2, 3, 4];
    for (const step of steps) {
      const set = step.set ?? [];
      for (const [i, over] of set) held.set(i, record(key(i), over));
      for (const i of step.remove ?? []) held.delete(i);
      projection.applyDelta({
        eventSeq: 1,
        removed: (step.remove ?? []).map(key),
        statusKeys: set.map(([i]) => key(i)),
        statuses: set.map(([i]) => encodeStatus(held.get(i) as StatusRecord)),
        patches: [],
        history: [],
        downtimesAdded: [],
        downtimesRemoved: [],
      });
      const want = toBinary(
        ListStatusResponseSchema,
        create(ListStatusResponseSchema, {
          statuses: positions.map((i) => objectStatus(index.entry(i), held.get(i))),
          totalSize: 9,
        }),
      );
      assert.deepEqual(statusPageBytes(index, projection, positions, "", 9), Buffer.from(want), step.name);
    }
  });

  const types: [string | null, boolean][] = [
    ["application/grpc", true],
    ["application/grpc+proto", true],
    ["application/grpc-web", true],
    ["application/grpc-web+proto", true],
    ["application/proto", true],
    ["application/proto; charset=utf-8", true],
    ["application/json", false],
    ["application/grpc+json", false],
    ["application/grpc-web+json", false],
    ["application/grpc-web-text", false],
    ["text/plain", false],
    [null, false],
  ];
  for (const [type, binary] of types) {
    it(`content type ${type} is ${binary ? "binary" : "not binary"}`, () => {
      assert.equal(isBinaryContentType(type), binary);
    });
  }
});
