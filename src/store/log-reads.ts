import { StoreError } from "./errors.js";
import type { LogHistoryPage, LogHistoryQuery, LogPerfdataQuery } from "./log-history.js";
import type { FromLogHistory, LogHistoryThreadData, ToLogHistory } from "./log-history-thread.js";
import type { PerfdataSeriesSet } from "./perfdata-buckets.js";
import { createThreadClient } from "./thread-client.js";

/** A request to the thread, before the client numbers it. */
type LogReadRequest = Omit<ToLogHistory, "id">;

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
  const client = createThreadClient<LogReadRequest, FromLogHistory>({
    module: new URL("./log-history-thread.js", import.meta.url),
    workerData: { dataDir: o.dataDir } satisfies LogHistoryThreadData,
    what: "reads history from the log",
  });
  const ask = async (m: LogReadRequest): Promise<FromLogHistory> => {
    const answer = await client.ask(m);
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
    close: () => client.close(),
  };
}
