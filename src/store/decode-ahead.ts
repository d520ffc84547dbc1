/**
 * The writer's decoding thread, seen from the writer (docs/storage.md, "Ingestion fast path"): an
 * ingest's body goes to it as soon as the ingest reaches the writer, and is decoded there (and its
 * plugin output parsed) while the writer applies and commits the groups before it — the second
 * core's share of ingestion. The writer takes an ingest into a group only once its answer is in,
 * so the order of requests is the order they arrived in; the answers come in the order sent.
 */
import { Worker } from "node:worker_threads";
import type { DecoderThreadData, FromDecoder, ToDecoder } from "./decoder-thread.js";
import { wholeBuffer } from "./decoder-thread.js";

export type AheadAnswer = FromDecoder;

export interface DecodeAhead {
  /**
   * Sends an ingest's body to be decoded (the body moves there when it is a whole buffer); false,
   * sending nothing, once the thread has failed (the writer then decodes it itself).
   */
  start(m: ToDecoder): boolean;
  /** Whether request `id` was sent and its answer is not in yet. */
  waiting(id: number): boolean;
  /** How many requests were sent whose answers are not in yet. */
  outstanding(): number;
  /** The answer for request `id` (once), or undefined when it was not sent or is not in yet. */
  take(id: number): AheadAnswer | undefined;
  /** The decoding thread's CPU time (ms) now, or as it last told when it does not answer soon. */
  cpuMs(): Promise<number | undefined>;
  /** Stops the thread; requests still out are never answered. */
  close(): void;
}

/**
 * Starts the decoding thread running `module` (which calls runDecoderThread). `onAnswer` is called
 * after each answer is in (the writer flushes once none is outstanding, so that what arrived
 * together is committed together). Should the thread fail, each request still out is answered `failed`
 * (its body went with it) and later ones are left to the writer.
 */
export function createDecodeAhead(
  module: URL,
  data: DecoderThreadData,
  youngGenerationMb: number,
  onAnswer: () => void,
): DecodeAhead {
  const worker = new Worker(module, {
    workerData: data,
    ...(youngGenerationMb > 0 ? { resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb } } : {}),
  });
  // The writer's thread ends when its own work does: this thread never keeps it alive.
  worker.unref();
  /** Requests sent: their answer once in, null while out. */
  const answers = new Map<number, AheadAnswer | null>();
  let cpu: number | undefined;
  let failed = false;
  let out = 0;
  const fail = (message: string): void => {
    if (failed) return;
    failed = true;
    for (const [id, a] of answers) if (a === null) answers.set(id, { t: "failed", id, message });
    out = 0;
    onAnswer();
  };
  /** Those waiting for the thread's CPU time. */
  let cpuWaiters: ((ms: number | undefined) => void)[] = [];
  worker.on("message", (a: AheadAnswer | { t: "cpu"; cpuMs: number | undefined }) => {
    if (a.t === "cpu") {
      if (a.cpuMs !== undefined) cpu = a.cpuMs;
      const w = cpuWaiters;
      cpuWaiters = [];
      for (const f of w) f(cpu);
      return;
    }
    if (answers.get(a.id) !== null) return;
    answers.set(a.id, a);
    out--;
    if (a.cpuMs !== undefined) cpu = a.cpuMs;
    onAnswer();
  });
  worker.on("error", (e) => fail(`the decoding thread failed: ${String(e)}`));
  worker.on("exit", (code) => fail(`the decoding thread exited (${code})`));
  return {
    start(m) {
      if (failed) return false;
      answers.set(m.id, null);
      out++;
      worker.postMessage(m, wholeBuffer(m.body));
      return true;
    },
    waiting: (id) => answers.get(id) === null,
    outstanding: () => out,
    take(id) {
      const a = answers.get(id);
      if (a === null || a === undefined) return undefined;
      answers.delete(id);
      return a;
    },
    cpuMs() {
      if (failed) return Promise.resolve(cpu);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          cpuWaiters = cpuWaiters.filter((f) => f !== done);
          resolve(cpu);
        }, 1_000);
        const done = (ms: number | undefined): void => {
          clearTimeout(timer);
          resolve(ms);
        };
        cpuWaiters.push(done);
        worker.postMessage({ t: "cpu" });
      });
    },
    close() {
      failed = true;
      void worker.terminate();
    },
  };
}
