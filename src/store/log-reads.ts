import { Worker } from "node:worker_threads";
import { StoreError } from "./errors.js";
import type { LogHistoryPage, LogHistoryQuery, LogPerfdataQuery } from "./log-history.js";
import type { FromLogHistory, LogHistoryThreadData, ToLogHistory } from "./log-history-thread.js";
import type { PerfdataSeriesSet } from "./perfdata-buckets.js";

/**
 * History and perfdata read from the event log (src/store/log-history.ts) on a thread of its own
 * (src/store/log-history-thread.ts), started with the first request: ListHistory beyond the
 * projection's ring, and ListPerfdata. Requests are answered one at a time, in the order asked.
 */
export interface LogReads {
  history(q: LogHistoryQuery): Promise<LogHistoryPage>;
  perfdata(q: LogPerfdataQuery): Promise<PerfdataSeriesSet>;
  /** Stops the thread; pending requests fail. */
  close(): Promise<void>;
}

export function createLogReads(o: { readonly dataDir: string }): LogReads {
  const waiting = new Map<number, { resolve: (m: FromLogHistory) => void; reject: (e: Error) => void }>();
  let worker: Worker | undefined;
  let nextId = 1;
  let closed = false;

  const failAll = (e: Error): void => {
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  };
  const thread = (): Worker => {
    if (worker !== undefined) return worker;
    const w = new Worker(new URL("./log-history-thread.js", import.meta.url), {
      workerData: { dataDir: o.dataDir } satisfies LogHistoryThreadData,
    });
    // What keeps the process alive only while it owes an answer.
    w.unref();
    w.on("message", (m: FromLogHistory) => {
      const p = waiting.get(m.id);
      waiting.delete(m.id);
      if (waiting.size === 0) w.unref();
      p?.resolve(m);
    });
    w.on("error", (e) => {
      worker = undefined;
      failAll(new StoreError("the thread that reads history from the log failed", { cause: e }));
    });
    w.on("exit", () => {
      if (worker === w) worker = undefined;
      failAll(new StoreError("the thread that reads history from the log stopped"));
    });
    worker = w;
    return w;
  };
  const ask = async (m: Omit<ToLogHistory, "id">): Promise<FromLogHistory> => {
    if (closed) throw new StoreError("closed");
    const id = nextId++;
    const answer = await new Promise<FromLogHistory>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      const w = thread();
      w.ref();
      w.postMessage({ ...m, id } as ToLogHistory);
    });
    if (answer.t === "error") throw new StoreError(answer.message);
    return answer;
  };

  return {
    async history(q) {
      const a = await ask({ t: "history", q });
      if (a.t !== "history") throw new StoreError(`unexpected ${a.t}`);
      return a.cursor === undefined ? { items: a.items } : { items: a.items, cursor: a.cursor };
    },
    async perfdata(q) {
      const a = await ask({ t: "perfdata", q });
      if (a.t !== "perfdata") throw new StoreError(`unexpected ${a.t}`);
      return { times: a.times, series: a.series, downsampled: a.downsampled };
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
