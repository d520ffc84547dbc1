import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Registry } from "prom-client";
import type { ThreadMemory } from "../store/index.js";
import { registerHeapMetrics } from "./heap-metrics.js";

const WAIT_MS = 20;

/** Writer figures whose heap in use is `n` bytes. */
const figures = (n: number): ThreadMemory => ({
  heapUsed: n,
  heapTotal: n,
  external: 0,
  arrayBuffers: 0,
  spaces: {},
});

/** A writer answering each question after `delays[i]` ms (Infinity: never), with heapUsed i + 1. */
function writerOf(delays: readonly number[]) {
  let asked = 0;
  return {
    asked: () => asked,
    ask: (): Promise<ThreadMemory> => {
      const i = asked++;
      const ms = delays[i] ?? 0;
      if (ms === Number.POSITIVE_INFINITY) return new Promise(() => {});
      return sleep(ms, figures(i + 1));
    },
  };
}

interface Scrape {
  /** The writer's heap in use as reported; undefined when no writer series was reported. */
  readonly writer: number | undefined;
  readonly ms: number;
  readonly reader: boolean;
}

async function scrape(reg: Registry): Promise<Scrape> {
  const t = performance.now();
  const text = await reg.metrics();
  const ms = performance.now() - t;
  const w = /^lookout_heap_used_bytes\{thread="writer"\} (\d+)$/m.exec(text)?.[1];
  return {
    writer: w === undefined ? undefined : Number(w),
    ms,
    reader: /^lookout_heap_used_bytes\{thread="reader"\} [1-9]\d*$/m.test(text),
  };
}

describe("the writer's heap figures never hold a scrape up", () => {
  const cases: {
    name: string;
    /** Per question to the writer (the first is asked at registration): ms until it answers. */
    delays: readonly number[];
    /** Ms to wait before each scrape (scrapes closer than 100 ms share their figures). */
    before: readonly number[];
    /** The writer's heapUsed each scrape reports (undefined: none). */
    want: readonly (number | undefined)[];
    /** How many questions the writer got in all. */
    asked: number;
  }[] = [
    {
      name: "an idle writer: each scrape reports its fresh answer",
      delays: [0, 0, 0],
      before: [10, 120],
      want: [2, 3],
      asked: 3,
    },
    {
      name: "a busy writer: the scrape reports its last answer, the next one a fresh answer",
      delays: [0, 300],
      before: [10, 400],
      want: [1, 3],
      asked: 3,
    },
    {
      name: "a writer that is busy for long is asked once, whatever the number of scrapes",
      delays: [0, Number.POSITIVE_INFINITY],
      before: [10, 120, 120],
      want: [1, 1, 1],
      asked: 2,
    },
    {
      name: "a writer that never answered: the scrape reports the reader only",
      delays: [Number.POSITIVE_INFINITY],
      before: [0, 120],
      want: [undefined, undefined],
      asked: 1,
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const reg = new Registry();
      const writer = writerOf(c.delays);
      registerHeapMetrics(reg, writer.ask, WAIT_MS);
      const got: (number | undefined)[] = [];
      for (const ms of c.before) {
        await sleep(ms);
        const s = await scrape(reg);
        assert.ok(s.reader, "the reader's figures are always there");
        // Generous for a loaded machine; a scrape that waited for the writer takes 300 ms or forever.
        assert.ok(s.ms < WAIT_MS + 250, `a scrape took ${s.ms.toFixed(0)} ms`);
        got.push(s.writer);
      }
      assert.deepEqual(got, c.want);
      assert.equal(writer.asked(), c.asked);
    });
  }
});
