import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RecordedEvent } from "../model/events.js";
import { silentLogger } from "../model/logger.js";
import type { LoggedEvent } from "../store/index.js";
import { FakeClock } from "../testing/fake-clock.js";
import type { RecordMapper } from "./records.js";
import { createSinkRunner, newSinkStats, STOP_GRACE_MS } from "./runner.js";
import type { SendOutcome, SinkBatch } from "./sink.js";

/** Events 1..n; event i yields i % 3 records (0, 1 or 2). */
const events = (n: number): LoggedEvent[] =>
  Array.from(
    { length: n },
    (_, k) => ({ seq: k + 1, cmdSeq: k + 1, event: { type: "ConfigApplied", at: 0 } }) as never,
  );
const mapper: RecordMapper = {
  map(e, out) {
    const n = e.seq % 3;
    for (let i = 0; i < n; i++) out.push({ kind: "event", seq: e.seq, event: e.event });
    return n;
  },
};

/** Runs a promise to its end while moving the fake clock on by `step` per turn. */
async function drive<T>(clock: FakeClock, p: Promise<T>, step = 1000): Promise<T> {
  let done = false;
  const r = p.finally(() => {
    done = true;
  });
  while (!done) {
    await new Promise((res) => setImmediate(res));
    clock.advance(step);
  }
  return r;
}

function rig(plan: (batch: SinkBatch, call: number) => SendOutcome) {
  const clock = new FakeClock();
  const stats = newSinkStats();
  const recorded: RecordedEvent[] = [];
  const sent: SinkBatch[] = [];
  const tried: SinkBatch[] = [];
  const waits: number[] = [];
  let last = clock.now();
  let calls = 0;
  const runner = createSinkRunner({
    name: "s",
    sink: {
      async send(b) {
        waits.push(clock.now() - last);
        tried.push(b);
        const r = plan(b, ++calls);
        last = clock.now();
        if (r.kind === "delivered") sent.push(b);
        return r;
      },
      close: async () => {},
    },
    mapper,
    batchSize: 4,
    clock,
    logger: silentLogger,
    stats,
    record: (e) => recorded.push(...e),
  });
  return { clock, stats, recorded, sent, tried, waits, runner };
}

describe("sink runner", () => {
  it("cuts sends of at most batch_size records at event boundaries and reports the last event", async () => {
    const r = rig(() => ({ kind: "delivered" }));
    const done = await drive(r.clock, r.runner.handle(events(9), new AbortController().signal));
    assert.equal(done, 9);
    // Records per event: 1 2 0 1 | 2 0 1 | 2 0: a send closes before an event that would take it past 4.
    assert.deepEqual(
      r.sent.map((b) => [b.firstSeq, b.lastSeq, b.records.length]),
      [
        [1, 4, 4],
        [5, 7, 3],
        [8, 9, 2],
      ],
    );
    assert.equal(r.stats.sent, 9);
    assert.deepEqual(r.recorded, [], "no event per delivered batch");
  });

  // Events 1..9 make the sends [1 2 2 4] [5 5 7] [8 8] (record seqs): the backend refuses any send
  // holding a record of event 5, as data or as a request.
  const holds5 = (b: SinkBatch): boolean => b.records.some((x) => x.seq === 5);
  for (const c of [
    {
      name: "a batch refused as a request is dropped whole, counted and recorded once; the runner moves on",
      outcome: { kind: "rejected", error: "HTTP 401: who" } as SendOutcome,
      sends: ["1-4", "5-7", "8-9"],
      sent: 6,
      dropped: [[5, 7, 3, "HTTP 401: who", undefined]],
    },
    {
      name: "a batch refused as data is split until only the refused records are dropped, each named",
      outcome: { kind: "rejected", error: "HTTP 400: out of order sample", data: true } as SendOutcome,
      sends: ["1-4", "5-7", "5-5", "5-5", "5-5", "7-7", "8-9"],
      sent: 7,
      dropped: [
        [5, 5, 1, "HTTP 400: out of order sample", { event: "ConfigApplied" }],
        [5, 5, 1, "HTTP 400: out of order sample", { event: "ConfigApplied" }],
      ],
    },
    {
      name: "a batch taken with some records refused unnamed (OTLP partial_success): those counted and recorded",
      outcome: { kind: "delivered", refused: { count: 2, error: "2 points rejected" } } as SendOutcome,
      sends: ["1-4", "5-7", "8-9"],
      sent: 7,
      dropped: [[5, 7, 2, "2 points rejected", undefined]],
    },
  ]) {
    it(c.name, async () => {
      const r = rig((b) => (holds5(b) ? c.outcome : { kind: "delivered" }));
      const done = await drive(r.clock, r.runner.handle(events(9), new AbortController().signal));
      assert.equal(done, 9);
      assert.deepEqual(
        r.tried.map((b) => `${b.firstSeq}-${b.lastSeq}`),
        c.sends,
      );
      assert.equal(r.stats.sent, c.sent);
      assert.equal(
        r.stats.dropped.get("rejected"),
        c.dropped.reduce((k, d) => k + (d[2] as number), 0),
      );
      assert.equal(r.stats.retries, 0, "never retried");
      assert.deepEqual(
        r.recorded.map((e) => e.type === "SinkDropped" && [e.fromSeq, e.toSeq, e.count, e.error, e.record]),
        c.dropped,
      );
    });
  }

  it("retries with capped exponential backoff, honours Retry-After, records the outage and the recovery once", async () => {
    const r = rig((_b, call) =>
      call <= 6
        ? { kind: "retry", error: "HTTP 503", ...(call === 6 ? { retryAfterMs: 30_000 } : {}) }
        : { kind: "delivered" },
    );
    const done = await drive(r.clock, r.runner.handle(events(2), new AbortController().signal), 250);
    assert.equal(done, 2);
    assert.equal(r.stats.retries, 6);
    // 250 ms doubling: 250, 500, 1000, 2000, 4000, then Retry-After 30 s (driven in 250 ms steps).
    const waits = r.waits.slice(1).map((w) => Math.ceil(w / 250) * 250);
    assert.deepEqual(waits, [250, 500, 1000, 2000, 4000, 30_000]);
    assert.deepEqual(
      r.recorded.map((e) => e.type),
      ["SinkFailed", "SinkFlushed"],
    );
  });

  it("stopped while retrying: reports the last delivered event, so nothing undelivered is skipped", async () => {
    const r = rig((b) => (b.firstSeq >= 5 ? { kind: "retry", error: "down" } : { kind: "delivered" }));
    const ac = new AbortController();
    const p = r.runner.handle(events(9), ac.signal);
    setTimeout(() => ac.abort(), 20);
    const done = await drive(r.clock, p, 100);
    assert.equal(done, 4);
  });
  it("stopped while a send is in flight: the send gets STOP_GRACE_MS to finish, then is aborted", async () => {
    for (const [advanceMs, want] of [
      [STOP_GRACE_MS - 1, { aborted: false, done: 4 }],
      [STOP_GRACE_MS, { aborted: true, done: 0 }],
    ] as const) {
      const clock = new FakeClock();
      let sendSignal: AbortSignal | undefined;
      let answer: ((o: SendOutcome) => void) | undefined;
      const runner = createSinkRunner({
        name: "s",
        sink: {
          send(_b, signal) {
            sendSignal = signal;
            return new Promise<SendOutcome>((res) => {
              answer = res;
              signal.addEventListener("abort", () => res({ kind: "retry", error: "aborted" }));
            });
          },
          close: async () => {},
        },
        mapper,
        batchSize: 100,
        clock,
        logger: silentLogger,
        stats: newSinkStats(),
        record: () => {},
      });
      const stop = new AbortController();
      const p = runner.handle(events(4), stop.signal);
      while (answer === undefined) await new Promise((res) => setImmediate(res));
      stop.abort();
      clock.advance(advanceMs);
      assert.equal(sendSignal?.aborted, want.aborted, `${advanceMs} ms after the stop`);
      // The backend answers now: taken if the send was still going, too late if it was aborted.
      answer({ kind: "delivered" });
      assert.equal(await p, want.done);
    }
  });
  it("encodes the next batch while one is in flight, and sends one at a time in order", async () => {
    const clock = new FakeClock();
    const log: string[] = [];
    let inFlight = 0;
    const span = (b: SinkBatch): string => `${b.firstSeq}-${b.lastSeq}`;
    const runner = createSinkRunner({
      name: "s",
      sink: {
        encode(b) {
          log.push(`encode ${span(b)}`);
          return new TextEncoder().encode(span(b));
        },
        async send(b) {
          assert.equal(++inFlight, 1, "one send at a time");
          log.push(`send ${span(b)} ${new TextDecoder().decode(b.encoded)}`);
          // The backend takes a few turns to answer: the runner encodes meanwhile.
          for (let i = 0; i < 3; i++) await new Promise((res) => setImmediate(res));
          log.push(`acked ${span(b)}`);
          inFlight--;
          return { kind: "delivered" };
        },
        close: async () => {},
      },
      mapper,
      batchSize: 4,
      clock,
      logger: silentLogger,
      stats: newSinkStats(),
      record: () => {},
    });
    const done = await drive(clock, runner.handle(events(9), new AbortController().signal));
    assert.equal(done, 9);
    assert.deepEqual(log, [
      "encode 1-4",
      "send 1-4 1-4",
      "encode 5-7",
      "acked 1-4",
      "send 5-7 5-7",
      "encode 8-9",
      "acked 5-7",
      "send 8-9 8-9",
      "acked 8-9",
    ]);
  });
});
