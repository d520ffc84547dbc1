import { Worker } from "node:worker_threads";
import type { WasmModule } from "./webassembly-api.js";
import type { WasmJob, WasmJobResult } from "./worker.js";

/** How one pooled run ended. */
export type PoolOutcome =
  | { readonly kind: "done"; readonly result: WasmJobResult }
  | { readonly kind: "timeout"; readonly afterMs: number }
  | { readonly kind: "aborted" }
  | { readonly kind: "crashed"; readonly message: string };

interface Pending {
  readonly job: WasmJob;
  settle(o: PoolOutcome): void;
  worker?: Worker;
}

const WORKER_URL = new URL("./worker.js", import.meta.url);

/**
 * Worker threads that run wasm jobs, at most `size` at once; further jobs wait in order. A worker
 * is reused across jobs (starting one costs tens of milliseconds, a job well under one), and
 * terminated outright when its job times out or is aborted: terminating is the only way to stop a
 * module in an endless loop. Idle workers are unref'd, so the pool never keeps the process alive.
 */
export class WasmWorkerPool {
  readonly #size: number;
  readonly #idle: Worker[] = [];
  readonly #running = new Map<Worker, Pending>();
  readonly #queue: Pending[] = [];
  /** Workers being terminated: close() waits for them too, so a stopped pool holds no thread. */
  readonly #ending = new Set<Promise<number>>();
  #nextId = 1;
  #closed = false;

  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  /** Runs `_start` of a module; settles with the outcome, never rejects. */
  run(
    module: WasmModule,
    args: readonly string[],
    cap: number,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<PoolOutcome> {
    if (signal.aborted) return Promise.resolve({ kind: "aborted" });
    if (this.#closed) return Promise.resolve({ kind: "crashed", message: "the wasm worker pool is closed" });
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const stop = (o: PoolOutcome): void => {
        const i = this.#queue.indexOf(p);
        if (i >= 0) this.#queue.splice(i, 1);
        if (p.worker !== undefined) this.#discard(p.worker);
        p.settle(o);
      };
      const onAbort = (): void => stop({ kind: "aborted" });
      const p: Pending = {
        job: { id: this.#nextId++, module, args, cap },
        settle: (o) => {
          if (timer !== undefined) clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          p.settle = () => {};
          resolve(o);
        },
      };
      signal.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs > 0) timer = setTimeout(() => stop({ kind: "timeout", afterMs: timeoutMs }), timeoutMs);
      this.#queue.push(p);
      this.#pump();
    });
  }

  /** Terminates every worker; queued and running jobs settle as crashed. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const p of this.#queue.splice(0))
      p.settle({ kind: "crashed", message: "the wasm worker pool closed" });
    const all = [...this.#idle.splice(0), ...this.#running.keys()];
    for (const p of this.#running.values())
      p.settle({ kind: "crashed", message: "the wasm worker pool closed" });
    this.#running.clear();
    await Promise.all([...all.map((w) => w.terminate()), ...this.#ending]);
  }

  #pump(): void {
    while (!this.#closed && this.#queue.length > 0) {
      let w = this.#idle.pop();
      if (w === undefined) {
        if (this.#running.size >= this.#size) return;
        w = this.#spawn();
      }
      const p = this.#queue.shift() as Pending;
      p.worker = w;
      this.#running.set(w, p);
      w.ref();
      w.postMessage(p.job);
    }
  }

  #spawn(): Worker {
    const w = new Worker(WORKER_URL, {
      // The engine's own node flags (--input-type, --test, loaders) mean nothing to a wasm worker and
      // some of them break it.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
    });
    w.on("message", (r: WasmJobResult) => {
      const p = this.#running.get(w);
      if (p === undefined || p.job.id !== r.id) return;
      this.#running.delete(w);
      p.worker = undefined;
      w.unref();
      this.#idle.push(w);
      p.settle({ kind: "done", result: r });
      this.#pump();
    });
    const lost = (message: string): void => {
      const p = this.#running.get(w);
      this.#running.delete(w);
      const i = this.#idle.indexOf(w);
      if (i >= 0) this.#idle.splice(i, 1);
      p?.settle({ kind: "crashed", message });
      this.#pump();
    };
    w.on("error", (e) => lost(`wasm worker failed: ${e.message}`));
    w.on("exit", (code) => lost(`wasm worker exited with code ${code}`));
    return w;
  }

  /** Stops a worker whose job is being abandoned; a fresh one is started when needed. */
  #discard(w: Worker): void {
    this.#running.delete(w);
    w.removeAllListeners("message");
    const ending = w.terminate();
    this.#ending.add(ending);
    void ending.finally(() => this.#ending.delete(ending));
    this.#pump();
  }
}
