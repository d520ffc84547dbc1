/**
 * The thread that reads history and perfdata from the event log (src/store/log-history.ts): it
 * owns a read-only connection and answers one request at a time, under the same low CPU policy as
 * the writer (SCHED_IDLE, else nice), so that a scan of the log never takes CPU from the live
 * reads or ingestion.
 */
import { parentPort, workerData } from "node:worker_threads";
import {
  type LogHistory,
  type LogHistoryQuery,
  type LogPerfdataQuery,
  openLogHistory,
} from "./log-history.js";
import type { HistoryRecord } from "./records.js";
import { applyThreadPolicy } from "./thread-priority.js";

/** What the owning thread asks. */
export type ToLogHistory =
  | { readonly t: "history"; readonly id: number; readonly q: LogHistoryQuery }
  | { readonly t: "perfdata"; readonly id: number; readonly q: LogPerfdataQuery };

/** A series as it crosses: its values' buffer is transferred. */
export interface SeriesMessage {
  readonly label: string;
  readonly uom: string;
  readonly warn: string;
  readonly crit: string;
  readonly min?: number;
  readonly max?: number;
  readonly values: Float64Array;
}

/** What the thread answers. */
export type FromLogHistory =
  | {
      readonly t: "history";
      readonly id: number;
      readonly items: readonly HistoryRecord[];
      readonly cursor?: number;
    }
  | {
      readonly t: "perfdata";
      readonly id: number;
      readonly times: Float64Array;
      readonly series: readonly SeriesMessage[];
      readonly downsampled: boolean;
    }
  | { readonly t: "error"; readonly id: number; readonly message: string };

/** The thread's workerData. */
export interface LogHistoryThreadData {
  readonly dataDir: string;
}

const port = parentPort;
if (port !== null) {
  const { dataDir } = workerData as LogHistoryThreadData;
  applyThreadPolicy("idle", 10);
  let log: LogHistory | undefined;
  port.on("message", (m: ToLogHistory) => {
    try {
      if (log === undefined) log = openLogHistory(dataDir);
      if (m.t === "history") {
        const page = log.history(m.q);
        port.postMessage({
          t: "history",
          id: m.id,
          items: page.items,
          ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
        } satisfies FromLogHistory);
      } else {
        const s = log.perfdata(m.q);
        port.postMessage(
          {
            t: "perfdata",
            id: m.id,
            times: s.times,
            series: s.series,
            downsampled: s.downsampled,
          } satisfies FromLogHistory,
          [s.times.buffer as ArrayBuffer, ...s.series.map((x) => x.values.buffer as ArrayBuffer)],
        );
      }
    } catch (e) {
      port.postMessage({
        t: "error",
        id: m.id,
        message: e instanceof Error ? e.message : String(e),
      } satisfies FromLogHistory);
    }
  });
}
