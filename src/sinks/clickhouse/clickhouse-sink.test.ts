import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { systemClock } from "../../model/clock.js";
import type { RecordedEvent } from "../../model/events.js";
import { silentLogger } from "../../model/logger.js";
import { runSinkContract, type SeenEvent, type SeenPoint } from "../contract.case.js";
import { freePort, startFaultProxy, waitReady } from "../fault-proxy.case.js";
import { createSinkRunner, newSinkStats } from "../runner.js";
import type { MetricPoint } from "../sink.js";
import { clickhouseCode, createClickhouseSink } from "./clickhouse-sink.js";

/** Debian's clickhouse-server (18.16) on loopback ports with a config of its own, one for this file. */
let server: ChildProcess | undefined;
let chUrl = "";
let dir = "";

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "lookout-clickhouse-"));
  for (const d of ["data", "tmp", "user_files", "format_schemas"]) mkdirSync(join(dir, d));
  const http = await freePort();
  const tcp = await freePort();
  writeFileSync(
    join(dir, "users.xml"),
    "<yandex><profiles><default></default></profiles><users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users><quotas><default></default></quotas></yandex>\n",
  );
  writeFileSync(
    join(dir, "config.xml"),
    `<yandex>
  <logger><level>error</level><console>1</console></logger>
  <http_port>${http}</http_port>
  <tcp_port>${tcp}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>5368709</mark_cache_size>
</yandex>
`,
  );
  server = spawn("clickhouse-server", [`--config-file=${join(dir, "config.xml")}`], { stdio: "ignore" });
  chUrl = `http://127.0.0.1:${http}`;
  await waitReady(`${chUrl}/ping`, 60_000);
});

after(() => {
  if (server?.pid !== undefined) process.kill(server.pid, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function exec(sql: string): Promise<void> {
  const r = await fetch(`${chUrl}/`, { method: "POST", body: sql, signal: AbortSignal.timeout(10_000) });
  assert.equal(r.status, 200, await r.text());
}

async function select<T>(sql: string): Promise<T[]> {
  // A bounded wait: a stuck server fails the test instead of hanging it.
  const r = await fetch(`${chUrl}/?query=${encodeURIComponent(`${sql} FORMAT JSONEachRow`)}`, {
    signal: AbortSignal.timeout(10_000),
  });
  const text = await r.text();
  if (!r.ok) {
    if (clickhouseCode(text) === 60) return []; // the sink has not created the table yet
    throw new Error(text);
  }
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as T);
}

runSinkContract({
  type: "clickhouse",
  async backend(name) {
    const proxy = await startFaultProxy(chUrl);
    const table = `t_${name}`;
    return {
      fields: { url: `${proxy.url}/`, table },
      async readPoints(): Promise<SeenPoint[]> {
        const rows = await select<{
          host: string;
          service: string;
          name: string;
          value: number;
          time_ms: string;
        }>(`SELECT host, service, name, value, time_ms FROM ${table} ORDER BY seq, name`);
        return rows.map((r) => ({
          host: r.host,
          service: r.service,
          name: r.name,
          value: r.value,
          time: Number(r.time_ms),
        }));
      },
      async readEvents(): Promise<SeenEvent[]> {
        const rows = await select<{ seq: string; type: string }>(
          `SELECT seq, type FROM ${table} ORDER BY seq`,
        );
        return rows.map((r) => ({ seq: Number(r.seq), type: r.type }));
      },
      ordered: false,
      fault: proxy.fault,
      faults: ["down", "slow", "garbage"],
      stop: proxy.stop,
    };
  },
});

describe("clickhouse sink", () => {
  it("creates the table, and refuses for good rows ClickHouse cannot parse", async () => {
    const s = createClickhouseSink({ url: `${chUrl}/`, table: "direct", input: "metrics" });
    const p = {
      kind: "metric" as const,
      seq: 1,
      time: Date.UTC(2026, 10, 27),
      host: "h",
      service: "",
      zone: "z",
      labels: { env: "prod" },
      name: "rta",
      value: 2,
      unit: "ms",
      warn: "",
      crit: "",
      max: 10,
    };
    const signal = new AbortController().signal;
    assert.equal((await s.send({ records: [p], firstSeq: 1, lastSeq: 1 }, signal)).kind, "delivered");
    const rows = await select<Record<string, unknown>>("SELECT * FROM direct");
    assert.deepEqual(rows, [
      {
        time_ms: String(p.time),
        date: "2026-11-27",
        seq: "1",
        host: "h",
        service: "",
        zone: "z",
        labels: '{"env":"prod"}',
        name: "rta",
        value: 2,
        unit: "ms",
        warn: "",
        crit: "",
        min: null,
        max: 10,
      },
    ]);
    const bad = createClickhouseSink({ url: `${chUrl}/`, table: "direct", input: "events" });
    const r = await bad.send(
      {
        records: [{ kind: "event", seq: 2, event: { type: "ConfigApplied", at: 1 } as never }],
        firstSeq: 2,
        lastSeq: 2,
      },
      signal,
    );
    assert.equal(r.kind, "rejected", JSON.stringify(r));
  });

  it("a row the table refuses fails the INSERT: the runner splits the batch, drops only that row and names it", async () => {
    // A table an operator made with integer values: a fraction is a row ClickHouse refuses (code 27).
    await exec(
      "CREATE TABLE strict (time_ms UInt64, date Date, seq UInt64, host String, service String, zone String, labels String, name String, value Int64, unit String, warn String, crit String, min Nullable(Float64), max Nullable(Float64)) ENGINE = MergeTree() PARTITION BY toYYYYMM(date) ORDER BY (host, service, name, time_ms)",
    );
    const t = Date.UTC(2026, 10, 27);
    const values = [1, 2, 3, 4.5, 5, 6, 7];
    const points: MetricPoint[] = values.map((value, i) => ({
      kind: "metric",
      seq: i + 1,
      time: t + i,
      host: `h${i}`,
      service: "disk",
      zone: "",
      labels: {},
      name: "used",
      value,
      unit: "",
      warn: "",
      crit: "",
    }));
    const recorded: RecordedEvent[] = [];
    const stats = newSinkStats();
    const runner = createSinkRunner({
      name: "ch",
      sink: createClickhouseSink({ url: `${chUrl}/`, table: "strict", input: "metrics" }),
      mapper: {
        map(e, out) {
          out.push(points[e.seq - 1] as MetricPoint);
          return 1;
        },
      },
      batchSize: 100,
      clock: systemClock,
      logger: silentLogger,
      stats,
      record: (es) => recorded.push(...es),
    });
    const events = points.map((p) => ({ seq: p.seq, event: { type: "ConfigApplied", at: 0 } }) as never);
    assert.equal(await runner.handle(events, new AbortController().signal), 7);
    const rows = await select<{ host: string; value: string }>(
      "SELECT host, value FROM strict ORDER BY host",
    );
    assert.deepEqual(
      rows.map((r) => [r.host, Number(r.value)]),
      [
        ["h0", 1],
        ["h1", 2],
        ["h2", 3],
        ["h4", 5],
        ["h5", 6],
        ["h6", 7],
      ],
    );
    assert.equal(stats.sent, 6);
    assert.equal(stats.dropped.get("rejected"), 1);
    assert.deepEqual(
      recorded.map((e) => e.type === "SinkDropped" && [e.fromSeq, e.toSeq, e.count, e.record]),
      [[4, 4, 1, { host: "h3", service: "disk", perfdata: "used", time: t + 3 }]],
    );
    assert.match((recorded[0] as { error: string }).error, /Code: 27/);
  });
});
