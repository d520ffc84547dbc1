import { endpoint, postBytes } from "../http-post.js";
import type { SendOutcome, Sink } from "../sink.js";
import { eventRow, eventsTable, metricRow, metricsTable } from "./schema.js";

/**
 * ClickHouse exception codes that retrying the same rows cannot fix (the input or the query is
 * wrong): the batch is refused for good, as data (a bad row fails the whole INSERT). Every other error (the server is starting, too many parts,
 * memory, network) is retried. 60 (UNKNOWN_TABLE) recreates the table first.
 */
const PERMANENT = new Set([6, 16, 26, 27, 38, 41, 53, 62, 72, 117]);
/**
 * Of those, the codes about a value in a row (parse errors of text, quoted strings, dates, numbers;
 * type mismatch; incorrect data), unlike 16 (no such column) and 62 (syntax), which every row of the
 * table would get.
 */
const ROW_REFUSED = new Set([6, 26, 27, 38, 41, 53, 72, 117]);
const UNKNOWN_TABLE = 60;

/** The exception code of a ClickHouse error body (`Code: 27, e.displayText() = …`). */
export function clickhouseCode(body: string): number | undefined {
  const m = /^Code: (\d+)/.exec(body);
  return m === null ? undefined : Number(m[1]);
}

/**
 * The `clickhouse` sink: the HTTP interface (works with 18.16 and later, no async inserts), one
 * `INSERT INTO <table> FORMAT JSONEachRow` per batch. The table is created if missing, before the
 * first insert and again after an UNKNOWN_TABLE error (docs/sinks.md has the schemas).
 */
export function createClickhouseSink(o: { url: string; table: string; input: "metrics" | "events" }): Sink {
  const ep = endpoint(o.url);
  let created = false;
  const withQuery = (q: string): typeof ep => {
    const u = new URL(ep.url);
    u.searchParams.set("query", q);
    return { ...ep, url: u.toString() };
  };
  const outcome = (status: number, text: string, retryAfter: number | undefined): SendOutcome => {
    if (status >= 200 && status < 300) return { kind: "delivered" };
    const code = clickhouseCode(text);
    const error = `HTTP ${status}: ${text.split("\n")[0]?.slice(0, 200) ?? ""}`;
    if (code === UNKNOWN_TABLE) created = false;
    // A row ClickHouse cannot parse or convert fails the whole INSERT: refused as data, so the
    // runner splits the batch and drops only the rows refused on their own.
    if (code !== undefined && PERMANENT.has(code))
      return ROW_REFUSED.has(code) ? { kind: "rejected", error, data: true } : { kind: "rejected", error };
    if (status >= 400 && status < 500 && code === undefined) return { kind: "rejected", error };
    return retryAfter === undefined
      ? { kind: "retry", error }
      : { kind: "retry", error, retryAfterMs: retryAfter };
  };
  return {
    async send(batch, signal) {
      if (!created) {
        const ddl = o.input === "metrics" ? metricsTable(o.table) : eventsTable(o.table);
        const r = await postBytes(ep, Buffer.from(ddl), {}, signal, { outcome });
        if (r.kind !== "delivered") return r.kind === "rejected" ? { kind: "retry", error: r.error } : r;
        created = true;
      }
      let body = "";
      for (const r of batch.records) body += `${r.kind === "metric" ? metricRow(r) : eventRow(r)}\n`;
      if (body === "") return { kind: "delivered" };
      return postBytes(
        withQuery(`INSERT INTO ${o.table} FORMAT JSONEachRow`),
        Buffer.from(body),
        {},
        signal,
        {
          outcome,
        },
      );
    },
    close: async () => {},
  };
}
