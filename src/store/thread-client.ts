import { Worker } from "node:worker_threads";
import { StoreError } from "./errors.js";

/**
 * The main thread's side of a thread that answers requests one by one (the past projections of
 * `as-of.ts`, the log reads of `log-reads.ts`): started with the first request, each request
 * numbered and its answer matched by that number, the process kept alive only while an answer is
 * owed, every waiting request failed when the thread fails, stops or is closed.
 */
export interface ThreadClient<In, Out> {
  /** Posts `m` with a fresh id and resolves with the thread's answer to it. */
  ask(m: In): Promise<Out>;
  /** Stops the thread; pending requests fail with "closed", later ones too. */
  close(): Promise<void>;
}

export interface ThreadClientOptions {
  /** The thread's entry module. */
  readonly module: URL;
  readonly workerData: unknown;
  /** What the thread does, for errors: "the thread that <what> failed". */
  readonly what: string;
  /** Told when the thread starts owing answers (true) and when it owes none any more (false). */
  readonly owing?: (owing: boolean) => void;
}

export function createThreadClient<In extends object, Out extends { readonly id: number }>(
  o: ThreadClientOptions,
): ThreadClient<In, Out> {
  const waiting = new Map<number, { resolve: (m: Out) => void; reject: (e: Error) => void }>();
  let worker: Worker | undefined;
  let nextId = 1;
  let closed = false;

  const failAll = (e: Error): void => {
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
    o.owing?.(false);
  };
  const thread = (): Worker => {
    if (worker !== undefined) return worker;
    const w = new Worker(o.module, { workerData: o.workerData });
    // What keeps the process alive only while it owes an answer.
    w.unref();
    w.on("message", (m: Out) => {
      const p = waiting.get(m.id);
      waiting.delete(m.id);
      if (waiting.size === 0) {
        w.unref();
        o.owing?.(false);
      }
      p?.resolve(m);
    });
    w.on("error", (e) => {
      worker = undefined;
      failAll(new StoreError(`the thread that ${o.what} failed`, { cause: e }));
    });
    w.on("exit", () => {
      if (worker === w) worker = undefined;
      failAll(new StoreError(`the thread that ${o.what} stopped`));
    });
    worker = w;
    return w;
  };

  return {
    async ask(m) {
      if (closed) throw new StoreError("closed");
      const id = nextId++;
      return new Promise<Out>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        o.owing?.(true);
        const w = thread();
        w.ref();
        w.postMessage({ ...m, id });
      });
    },
    async close() {
      closed = true;
      const w = worker;
      worker = undefined;
      failAll(new StoreError("closed"));
      if (w !== undefined) await w.terminate();
    },
  };
}
