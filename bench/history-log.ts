/**
 * ListHistory and ListPerfdata read from the event log (src/store/log-history.ts): how long it
 * takes to page through a range of the log. The log is written directly (EventLog.recordApplied)
 * as the writer would (its row writer, which also marks the entries for the history table): one group per minute holding one result per service (CheckResultProcessed,
 * with perfdata), and a StateChange after `changePercent` % of them. Then, on the reading thread
 * the server uses (Core's LogReads): every state change paged newest first and oldest first (pages
 * of 1000), one service's history newest first (a sparse filter), and one service's perfdata over
 * the whole range reduced to 1000 points.
 *
 *   node dist/bench/history-log.js [services=1000] [hours=24] [changePercent=2]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { LookoutEvent } from "../src/model/events.js";
import { EventLog } from "../src/store/event-log.js";
import { createEventRowWriter } from "../src/store/event-row.js";
import type { LogHistoryQuery } from "../src/store/log-history.js";
import { createLogReads } from "../src/store/log-reads.js";

const [servicesArg, hoursArg, changeArg] = process.argv.slice(2);
const services = Number(servicesArg ?? 1000);
const hours = Number(hoursArg ?? 24);
const changePercent = Number(changeArg ?? 2);
const MINUTE = 60_000;
const start = Date.UTC(2026, 10, 1);
const minutes = Math.round(hours * 60);

function resultEvent(i: number, at: number, exitStatus: 0 | 2, v: number): LookoutEvent {
  const service = `svc-${String(i % 10).padStart(3, "0")}`;
  const host = `host-${String(Math.floor(i / 10)).padStart(5, "0")}`;
  const state = exitStatus === 0 ? "OK" : "CRITICAL";
  return {
    type: "CheckResultProcessed",
    at,
    key: `${host}!${service}`,
    host,
    service,
    result: {
      host,
      service,
      exitStatus,
      output: `${state} - response time ${v.toFixed(3)}s`,
      longOutput: "",
      perfdata: [
        { label: "time", value: v, uom: "s", warn: "1", crit: "2", min: 0 },
        { label: "size", value: 5120 + (i % 7), uom: "B", warn: "", crit: "", min: 0 },
      ],
      checkedAt: at,
      durationMs: 12,
      source: "active",
    },
    status: {
      state,
      stateType: "HARD",
      attempt: 1,
      maxAttempts: 3,
      lastCheck: at,
      lastStateChange: start,
      lastHardState: state,
      lastHardStateChange: start,
      flapping: false,
      flapPercent: 0,
      acknowledgement: null,
      inDowntime: false,
      reachable: true,
    },
  } as LookoutEvent;
}

function stateChange(i: number, at: number, to: "OK" | "CRITICAL"): LookoutEvent {
  const service = `svc-${String(i % 10).padStart(3, "0")}`;
  const host = `host-${String(Math.floor(i / 10)).padStart(5, "0")}`;
  return {
    type: "StateChange",
    at,
    key: `${host}!${service}`,
    host,
    service,
    from: to === "OK" ? "CRITICAL" : "OK",
    to,
    stateType: "HARD",
    attempt: 1,
    maxAttempts: 3,
    hardChange: true,
    fromHardState: to === "OK" ? "CRITICAL" : "OK",
    reachable: true,
    output: `${to} - changed`,
  };
}

const dir = mkdtempSync(join(tmpdir(), "lookout-bench-history-"));
try {
  const log = EventLog.open(dir);
  const row = createEventRowWriter();
  const up = new Uint8Array(services); // 0: OK, 1: CRITICAL
  let changes = 0;
  let events = 0;
  let bytes = 0;
  const t0 = performance.now();
  for (let m = 0; m < minutes; m++) {
    const at = start + m * MINUTE;
    const group: LookoutEvent[] = [];
    for (let i = 0; i < services; i++) {
      // A deterministic few per cent change state each minute.
      const flip = ((i * 7919 + m * 104729) % 10_000) / 100 < changePercent;
      if (flip) up[i] = up[i] === 0 ? 1 : 0;
      const exit = up[i] === 0 ? 0 : 2;
      group.push(resultEvent(i, at, exit, ((i + m) % 100) / 50));
      if (flip) {
        group.push(stateChange(i, at, exit === 0 ? "OK" : "CRITICAL"));
        changes++;
      }
    }
    // Serialized, packed and marked for the history table as the writer does (src/store/event-row.ts).
    for (const e of group) row.add(e);
    const history = row.takeHistory();
    const body = row.take();
    bytes += body.length;
    log.recordApplied(m + 1, [
      { cmdSeq: m + 1, at, count: group.length, body, ...(history === undefined ? {} : { history }) },
    ]);
    events += group.length;
  }
  log.close();
  const genMs = performance.now() - t0;
  process.stdout.write(
    `log: ${services} services × ${hours} h, one result per minute: ${events} events, ${changes} state changes, ${(bytes / 2 ** 20).toFixed(1)} MiB packed (written in ${(genMs / 1000).toFixed(1)} s)\n`,
  );

  const reads = createLogReads({ dataDir: dir });
  const walk = async (q: Omit<LogHistoryQuery, "cursor" | "budgetMs">) => {
    const t = performance.now();
    const cpu = process.cpuUsage();
    let cursor: number | undefined;
    let n = 0;
    let pages = 0;
    let slowest = 0;
    do {
      const p0 = performance.now();
      const page = await reads.history({
        ...q,
        budgetMs: 2_000,
        ...(cursor === undefined ? {} : { cursor }),
      });
      slowest = Math.max(slowest, performance.now() - p0);
      n += page.items.length;
      cursor = page.cursor;
      pages++;
    } while (cursor !== undefined);
    const used = process.cpuUsage(cpu);
    return { n, pages, ms: performance.now() - t, slowest, cpuMs: (used.user + used.system) / 1000 };
  };
  const line = (what: string, r: { n: number; pages: number; ms: number; slowest: number; cpuMs: number }) =>
    process.stdout.write(
      `${what}: ${r.n} entries in ${r.pages} pages, ${(r.ms / 1000).toFixed(2)} s wall, ${(r.cpuMs / 1000).toFixed(2)} s CPU (slowest page ${r.slowest.toFixed(0)} ms)\n`,
    );
  line(
    "every state change, newest first, pages of 1000",
    await walk({ kinds: ["StateChange"], oldestFirst: false, limit: 1000 }),
  );
  line("every state change, oldest first, pages of 1000", await walk({ oldestFirst: true, limit: 1000 }));
  line(
    "one service's history, newest first, pages of 100",
    await walk({ keys: ["host-00000!svc-003"], oldestFirst: false, limit: 100 }),
  );
  const p0 = performance.now();
  const c0 = process.cpuUsage();
  const s = await reads.perfdata({ key: "host-00000!svc-003", labels: [], maxPoints: 1000 });
  process.stdout.write(
    `one service's perfdata over the whole range: ${s.series.length} series × ${s.times.length} points (downsampled ${s.downsampled}), ${((performance.now() - p0) / 1000).toFixed(2)} s wall, ${(((c1) => (c1.user + c1.system) / 1e6)(process.cpuUsage(c0))).toFixed(2)} s CPU\n`,
  );
  await reads.close();
  process.stdout.write(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
