import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { create, type MessageInitShape, toBinary, toJsonString } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import {
  ProcessCheckResultRequestSchema,
  ProcessCheckResultsRequestSchema,
} from "../api/gen/svc/v1/command_service_pb.js";
import { RejectedError } from "../store/errors.js";
import { EventLog, openEventLogReader, unpackBody } from "../store/event-log.js";
import type { IngestOutcome } from "../store/index.js";
import { replayProjection } from "../store/replay.js";
import { Database } from "../store/sqlite.js";
import { FakeClock } from "../testing/fake-clock.js";
import { Core } from "./core.js";
import { type ResultsForm, readResultsDescription } from "./encoded-results.js";
import { fleetConfig } from "./fleet-config.js";

// Core.submitEncoded end to end: bodies in their wire form go to the real writer thread, which
// decodes, validates against the config in force and enqueues them — or refuses, or sends back.

type Result = MessageInitShape<typeof ProcessCheckResultRequestSchema>;

const config = fleetConfig({ hosts: 3, servicesPerHost: 2, maxAttempts: 1 });
const clock = new FakeClock(Date.UTC(2026, 0, 1));
const dirs: string[] = [];
let core: Core;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), "lookout-encoded-"));
  dirs.push(dir);
  core = await Core.open({ dataDir: dir, config, clock });
});
after(async () => {
  await core.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A body that owns its ArrayBuffer, as the API hands it over. */
function owned(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

function body(form: ResultsForm, results: Result[]): Uint8Array {
  const enc = new TextEncoder();
  switch (form) {
    case "results-proto":
      return owned(
        toBinary(ProcessCheckResultsRequestSchema, create(ProcessCheckResultsRequestSchema, { results })),
      );
    case "results-json":
      return enc.encode(
        toJsonString(ProcessCheckResultsRequestSchema, create(ProcessCheckResultsRequestSchema, { results })),
      );
    case "result-proto":
      return owned(
        toBinary(ProcessCheckResultRequestSchema, create(ProcessCheckResultRequestSchema, results[0])),
      );
    case "result-json":
      return enc.encode(
        toJsonString(ProcessCheckResultRequestSchema, create(ProcessCheckResultRequestSchema, results[0])),
      );
  }
}

interface Case {
  readonly name: string;
  readonly form: ResultsForm;
  readonly body: Uint8Array;
  /** How many were enqueued, the refusal, or "undecoded". */
  readonly want: number | { reason: "invalid" | "not_found"; message: string; index: number } | "undecoded";
  /** The objects the writer describes (for the audit), enqueued or refused. */
  readonly objects?: [string, string | null][];
}

/** An outcome without the writer's description (which cases check apart). */
const counted = (o: IngestOutcome) => (o.kind === "enqueued" ? { kind: o.kind, accepted: o.accepted } : o);

const ok = (host: string, service?: string, exitStatus = 0): Result => ({
  host,
  ...(service === undefined ? {} : { service }),
  exitStatus,
  output: `status ${exitStatus} | load=${exitStatus}`,
});

const forms: ResultsForm[] = ["results-proto", "results-json"];
const cases: Case[] = [
  ...forms.flatMap((form): Case[] => [
    {
      name: `${form}: a batch`,
      form,
      body: body(form, [ok("host-00000", "svc-000", 2), ok("host-00001")]),
      want: 2,
      objects: [
        ["host-00000", "svc-000"],
        ["host-00001", null],
      ],
    },
    { name: `${form}: an empty batch`, form, body: body(form, []), want: 0 },
    {
      name: `${form}: an unknown service, second in the batch`,
      form,
      body: body(form, [ok("host-00001", "svc-001", 2), ok("host-00001", "http")]),
      want: {
        reason: "not_found",
        message: 'service "http" is not configured on host "host-00001"',
        index: 1,
      },
      objects: [
        ["host-00001", "svc-001"],
        ["host-00001", "http"],
      ],
    },
    {
      name: `${form}: an unknown host`,
      form,
      body: body(form, [ok("nope")]),
      want: { reason: "not_found", message: 'host "nope" is not configured', index: 0 },
    },
    {
      name: `${form}: no host`,
      form,
      body: body(form, [ok("host-00000"), ok("")]),
      want: { reason: "invalid", message: "host is required", index: 1 },
    },
    {
      name: `${form}: an empty service`,
      form,
      body: body(form, [ok("host-00000", "")]),
      want: { reason: "invalid", message: "service, when given, must not be empty", index: 0 },
    },
    {
      name: `${form}: a bad exit status`,
      form,
      body: body(form, [ok("host-00000", "svc-000", 4)]),
      want: { reason: "invalid", message: "exit status 4 is not one of 0, 1, 2, 3", index: 0 },
    },
    {
      name: `${form}: a time before the epoch`,
      form,
      body: body(form, [{ ...ok("host-00000"), checkedAt: create(TimestampSchema, { seconds: -10n }) }]),
      want: { reason: "invalid", message: "checked_at is not a valid time", index: 0 },
    },
  ]),
  {
    name: "result-proto: one result",
    form: "result-proto",
    body: body("result-proto", [ok("host-00002", "svc-000", 1)]),
    want: 1,
  },
  {
    name: "result-json: one bad result",
    form: "result-json",
    body: body("result-json", [ok("host-00002", "svc-000", 9)]),
    want: { reason: "invalid", message: "exit status 9 is not one of 0, 1, 2, 3", index: 0 },
  },
  {
    name: "a JSON body with a byte-order mark (dropped, as Connect does)",
    form: "results-json",
    body: new TextEncoder().encode('\ufeff{"results":[{"host":"host-00002"}]}'),
    want: 1,
  },
  {
    name: "malformed JSON comes back",
    form: "results-json",
    body: new TextEncoder().encode("{"),
    want: "undecoded",
  },
  {
    name: "a truncated protobuf body comes back",
    form: "results-proto",
    body: new Uint8Array([0x0a, 0x05]),
    want: "undecoded",
  },
];

describe("Core.submitEncoded", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const sent = c.body.slice();
      const outcome = core.submitEncoded(c.form, c.body);
      // Ingests of one turn travel together, at the end of the turn.
      await new Promise((r) => setImmediate(r));
      assert.equal(c.body.byteLength, 0, "the body is transferred to the writer");
      if (typeof c.want === "number") {
        const o = await outcome;
        assert.deepEqual(counted(o), { kind: "enqueued", accepted: c.want });
        const described =
          o.kind === "enqueued" && o.described !== undefined
            ? readResultsDescription(o.described)
            : undefined;
        assert.equal(described?.count, c.want);
        if (c.objects !== undefined) assert.deepEqual(described?.objects, c.objects);
      } else if (c.want === "undecoded") {
        const o = await outcome;
        assert.equal(o.kind, "undecoded");
        assert.deepEqual(o.kind === "undecoded" ? new Uint8Array(o.body) : undefined, sent, "the same bytes");
      } else {
        const want = c.want;
        await assert.rejects(outcome, (e: unknown) => {
          assert.ok(e instanceof RejectedError);
          assert.deepEqual({ reason: e.reason, message: e.message, index: e.index }, want);
          if (c.objects !== undefined)
            assert.deepEqual(readResultsDescription(e.detail as unknown[]).objects, c.objects);
          return true;
        });
      }
    });
  }

  it("applied what it enqueued, parsed, and nothing of refused batches", async () => {
    await core.flush();
    const { projection } = core.view;
    const s = projection.status("host-00000!svc-000");
    assert.equal(s?.state, "CRITICAL");
    assert.equal(s?.output, "status 2");
    assert.deepEqual(s?.perfdata, [{ label: "load", value: 2, uom: "", warn: "", crit: "" }]);
    assert.equal(s?.lastCheck, clock.now(), "no checked_at: the receive time");
    assert.equal(projection.status("host-00002!svc-000")?.state, "WARNING");
    assert.equal(projection.status("host-00001!svc-001"), undefined, "the refused batch left no trace");
  });

  it("validates against the config in force at its place in the queue", async () => {
    const grown = fleetConfig({ hosts: 4, servicesPerHost: 2, maxAttempts: 1 });
    const reload = core.applyConfig(grown);
    const outcome = core.submitEncoded(
      "results-proto",
      body("results-proto", [ok("host-00003", "svc-001", 2)]),
    );
    await reload;
    assert.deepEqual(counted(await outcome), { kind: "enqueued", accepted: 1 });
    await core.applyConfig(config);
    await assert.rejects(
      core.submitEncoded("results-json", body("results-json", [ok("host-00003")])),
      (e: unknown) => e instanceof RejectedError && e.reason === "not_found",
    );
  });

  it("logs batches that a restart and a fresh replay turn into the same projection", async () => {
    await core.flush();
    const before = core.view.projection.snapshot();
    await core.close();
    core = await Core.open({ dataDir: dirs[0] as string, config, clock });
    assert.deepEqual(core.view.projection.snapshot(), before);
    assert.deepEqual(replayProjection(dirs[0] as string), before);
  });
});

describe("one-result ingests in the same group", () => {
  const dir = mkdtempSync(join(tmpdir(), "lookout-merged-"));
  dirs.push(dir);
  const merging = new FakeClock(Date.UTC(2026, 0, 2));
  let c: Core;
  before(async () => {
    c = await Core.open({ dataDir: dir, config, clock: merging });
  });
  after(async () => {
    await c.close();
  });

  it("share one log row, each applied at its own receive time, refusals apart, other commands between", async () => {
    const reader = openEventLogReader(dir);
    const from = reader.lastSeq();
    const t0 = merging.now();
    const one = (host: string, service: string, exit: number): Promise<IngestOutcome> =>
      c.submitEncoded("result-json", body("result-json", [ok(host, service, exit)]));
    // One turn: two requests 5 ms apart, one refused, then a command of another kind, then one more.
    const a = one("host-00000", "svc-000", 1);
    merging.advance(5);
    const b = one("host-00001", "svc-000", 2);
    const refused = assert.rejects(
      one("nope", "svc-000", 0),
      (e: unknown) => e instanceof RejectedError && e.reason === "not_found",
    );
    const between = c.submit([
      {
        type: "ProcessCheckResult",
        result: {
          host: "host-00002",
          service: "svc-000",
          exitStatus: 3,
          output: "between",
          longOutput: "",
          perfdata: [],
          checkedAt: merging.now(),
          durationMs: 0,
          source: "passive",
        },
      },
    ]);
    merging.advance(5);
    const last = one("host-00002", "svc-001", 1);
    assert.deepEqual(counted(await a), { kind: "enqueued", accepted: 1 });
    assert.deepEqual(counted(await b), { kind: "enqueued", accepted: 1 });
    await refused;
    await between;
    assert.deepEqual(counted(await last), { kind: "enqueued", accepted: 1 });
    await c.flush();

    const results = reader
      .eventsAfter(from, 1000)
      .flatMap((e) =>
        e.event.type === "CheckResultProcessed"
          ? [{ key: e.event.key, at: e.event.at, cmdSeq: e.cmdSeq }]
          : [],
      );
    reader.close();
    const [ra, rb, rBetween, rLast] = results;
    assert.equal(results.length, 4, JSON.stringify(results));
    assert.deepEqual(
      results.map((r) => [r.key, r.at - t0]),
      [
        ["host-00000!svc-000", 0],
        ["host-00001!svc-000", 5],
        ["host-00002!svc-000", 5],
        ["host-00002!svc-001", 10],
      ],
    );
    assert.equal(ra?.cmdSeq, rb?.cmdSeq, "the two requests of the turn are one row");
    assert.notEqual(rBetween?.cmdSeq, ra?.cmdSeq, "a command of another kind is a row of its own");
    assert.notEqual(rLast?.cmdSeq, rBetween?.cmdSeq, "and a merge does not reach across it");
  });

  it("a restart and a fresh replay give the same projection", async () => {
    await c.flush();
    const before = c.view.projection.snapshot();
    await c.close();
    c = await Core.open({ dataDir: dir, config, clock: merging });
    assert.deepEqual(c.view.projection.snapshot(), before);
    assert.deepEqual(replayProjection(dir), before);
  });
});

describe("decoded on the writer's decoding thread or on the writer's own", () => {
  /** Plugin texts whose figures JSON keeps and some it would not (they stay unparsed there). */
  const texts = [
    "OK - fine | time=0.012s;1;2;0;10 'a b'=3%",
    "WARNING - slow\nline two\nline three | size=1e999B;;;-0;1e999\nmore=2",
    "CRITICAL | zero=-0 huge=1e308",
    "UNKNOWN – ünïcode ✓ | x=1",
  ];
  const batch = (i: number): Result[] =>
    texts.map((output, j) => ({
      ...ok(`host-0000${(i + j) % 3}`, j % 2 === 0 ? "svc-000" : undefined, j),
      output,
    }));

  /** Submits the same requests, in the same order, to a Core with decodeAhead on or off. */
  async function run(decodeAhead: boolean) {
    const dir = mkdtempSync(join(tmpdir(), `lookout-ahead-${decodeAhead}-`));
    dirs.push(dir);
    const at = new FakeClock(Date.UTC(2026, 0, 3));
    const c = await Core.open({ dataDir: dir, config, clock: at, writer: { decodeAhead } });
    const outcomes: unknown[] = [];
    /** Each request's outcome in the order the requests were made. */
    const settle = (p: Promise<unknown>): Promise<void> => {
      const i = outcomes.push(undefined) - 1;
      return p.then(
        (o) => {
          outcomes[i] = o === undefined ? "ok" : counted(o as IngestOutcome);
        },
        (e: unknown) => {
          outcomes[i] =
            e instanceof RejectedError ? { reason: e.reason, index: e.index, m: e.message } : String(e);
        },
      );
    };
    const waits: Promise<void>[] = [];
    /** A body the decoding thread takes (2 KiB or more; smaller ones stay with the writer). */
    const batchBody = (form: ResultsForm, results: Result[]): Uint8Array => {
      const b = body(form, results);
      assert.ok(b.byteLength >= 2048, `${b.byteLength} bytes`);
      return b;
    };
    const pad = Array.from({ length: 40 }, (_, k) => ok(`host-0000${k % 3}`, undefined, k % 2));
    for (let i = 0; i < 3; i++) {
      waits.push(settle(c.submitEncoded("results-json", body("results-json", batch(i)))));
      // Decoded there, and logged in the group's row with the requests around it.
      const medium = Array.from({ length: 6 }, (_, k) => batch(i + k)).flat();
      waits.push(settle(c.submitEncoded("results-json", batchBody("results-json", medium))));
      // Big enough to be packed on the decoding thread and logged as a row of its own.
      const big = Array.from({ length: 60 }, (_, k) => batch(i + k)).flat();
      waits.push(settle(c.submitEncoded("results-proto", batchBody("results-proto", big))));
      waits.push(settle(c.submitEncoded("results-proto", body("results-proto", batch(i + 1)))));
      waits.push(
        settle(c.submitEncoded("result-json", body("result-json", [ok("host-00002", "svc-001", i)]))),
      );
      at.advance(7);
    }
    // Passive checks of one service off: a batch naming it is refused there, by the engine's state.
    waits.push(
      settle(
        c.submit([
          {
            type: "SetObjectFlags",
            target: { object: { host: "host-00001", service: "svc-001" } },
            flags: { passiveChecks: false },
            author: "test",
          },
        ]),
      ),
    );
    await Promise.all(waits);
    await c.flush();
    waits.length = 0;
    waits.push(
      settle(
        c.submitEncoded(
          "results-proto",
          batchBody("results-proto", [...pad, ok("host-00000"), ok("host-00001", "svc-001"), ...pad]),
        ),
      ),
    );
    waits.push(
      settle(
        c.submitEncoded(
          "results-json",
          batchBody("results-json", [ok("host-00001", "svc-001", 7), ...pad, ok("x")]),
        ),
      ),
    );
    waits.push(settle(c.submitEncoded("results-json", new TextEncoder().encode('{"results":[{"host":1}]}'))));
    // Not decoded exactly on either thread: it comes back, to be decoded by the caller.
    const surrogate = { ...ok("host-00000"), output: "\ud800 lone surrogate" };
    waits.push(settle(c.submitEncoded("results-json", body("results-json", [...pad, surrogate]))));
    waits.push(settle(c.submitEncoded("results-json", batchBody("results-json", [...pad, ok("nope")]))));
    const malformed = `{"results":[${JSON.stringify(ok("host-00000")).repeat(40)}]}`;
    waits.push(settle(c.submitEncoded("results-json", new TextEncoder().encode(malformed))));
    await Promise.all(waits);
    await c.flush();
    const projection = c.view.projection.snapshot();
    // Read while open: closing takes a snapshot, which drops the commands it covers.
    const db = new Database(join(dir, "lookout.db"), { readonly: true, fileMustExist: true });
    const rows = (
      db.prepare("SELECT at, body FROM commands ORDER BY seq").all() as { at: number; body: Buffer }[]
    ).map((r) => ({ at: r.at, body: unpackBody(r.body) }));
    db.close();
    await c.close();
    const log = EventLog.open(dir);
    // The commands in log order, each with its time: a batch packed on the decoding thread is a
    // row of its own, where the writer would have put it in the group's row.
    const commands = rows.flatMap((r) => {
      if (!r.body.startsWith("[")) return [[r.at, r.body]];
      let when = r.at;
      return (JSON.parse(r.body) as unknown[]).flatMap((e) => {
        if (typeof e !== "number") return [[when, e]];
        when = e;
        return [];
      });
    });
    const events = log.eventsAfter(0, 100_000).map((e) => e.event);
    log.close();
    return { outcomes, rows: rows.length, commands, events, projection, replayed: replayProjection(dir) };
  }

  it("answers, logs, applies and replays alike", async () => {
    const ahead = await run(true);
    const own = await run(false);
    assert.deepEqual(ahead.outcomes, own.outcomes);
    assert.ok(
      ahead.outcomes.some(
        (o) => typeof o === "object" && o !== null && "reason" in o && o.reason === "failed_precondition",
      ),
      JSON.stringify(ahead.outcomes),
    );
    assert.deepEqual(ahead.commands, own.commands, "the same commands logged, at the same times");
    assert.ok(
      ahead.rows > own.rows,
      `the big batches are rows of their own (${ahead.rows} rows, ${own.rows} without)`,
    );
    assert.deepEqual(ahead.events, own.events);
    assert.deepEqual(ahead.projection, own.projection);
    assert.deepEqual(ahead.replayed, ahead.projection);
  });
});
