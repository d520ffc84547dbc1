/**
 * A sink catching up, in-process: `n` results with 4 perfdata points each are applied to a Core
 * first, then one sink of `type` (remote_write or file; a loopback receiver that only counts bytes
 * for remote_write) starts at the oldest event and the time to deliver everything is printed as
 * results/s, with the CPU time of the main thread and of the sink thread per result. `where`: on
 * the sink thread as the server runs sinks (`thread`), or on the main thread (`main`: run with
 * --cpu-prof to see where a sink's time goes).
 *
 *   node dist/bench/sinks-catch-up.js [n=100000] [type=remote_write] [where=thread]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsumerHost } from "../src/consumers/index.js";
import { Core } from "../src/core/core.js";
import { fleetConfig, fleetHost, fleetService } from "../src/core/fleet-config.js";
import { systemClock } from "../src/model/clock.js";
import type { Config, SinkConfig } from "../src/model/config.js";
import { silentLogger } from "../src/model/logger.js";
import { SinkSet } from "../src/sinks/index.js";

/** CPU ms of this process's main thread, sink thread ("lookout-sinks") and other threads. */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of readdirSync("/proc/self/task")) {
    try {
      const f = readFileSync(`/proc/self/task/${t}/stat`, "utf8");
      const comm = f.slice(f.indexOf("(") + 1, f.lastIndexOf(")"));
      const k = t === String(process.pid) ? "main" : comm === "lookout-sinks" ? "sinks" : "other";
      const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
      out.set(k, (out.get(k) ?? 0) + (Number(rest[11]) + Number(rest[12])) * 10);
    } catch {
      // the thread ended
    }
  }
  return out;
}

const n = Number(process.argv[2] ?? 100_000);
const type = (process.argv[3] ?? "remote_write") as "remote_write" | "file";
const where = process.argv[4] ?? "thread";
const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-sinks-catch-up-"));
let bytes = 0;
const rx = createServer((req, res) => {
  req.on("data", (c: Buffer) => {
    bytes += c.length;
  });
  req.on("end", () => res.writeHead(204).end());
});
await new Promise<void>((r) => rx.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${(rx.address() as AddressInfo).port}/api/v1/write`;

const base = fleetConfig({ hosts: 100, servicesPerHost: 100, maxAttempts: 1 });
const core = await Core.open({ dataDir: join(dir, "data"), config: base, clock: systemClock });
const t0 = Date.now();
for (let done = 0; done < n; done += 1000) {
  await core.submit(
    Array.from({ length: 1000 }, (_, k) => ({
      type: "ProcessCheckResult" as const,
      result: {
        host: fleetHost((((done + k) / 100) % 100) | 0),
        service: fleetService((done + k) % 100),
        exitStatus: 0 as const,
        output: "OK",
        longOutput: "",
        perfdata: ["time", "p0", "p1", "p2"].map((label, i) => ({
          label,
          value: i,
          uom: "ms",
          warn: "1",
          crit: "2",
          min: 0,
        })),
        checkedAt: t0 + done + k,
        durationMs: 0,
        source: "passive" as const,
      },
    })),
  );
}
await core.flush();
const host = ConsumerHost.open({ dataDir: join(dir, "data"), clock: systemClock, logger: silentLogger });
const sink = {
  name: "s",
  input: "metrics",
  selector: "",
  batchSize: 5000,
  flushIntervalMs: 1000,
  cursor: "oldest",
  ...(type === "file" ? { type, path: join(dir, "out.ndjson"), rotateBytes: 1 << 30 } : { type, url }),
} as SinkConfig;
const config: Config = { ...base, sinks: new Map([["s", sink]]) };
const sinks = new SinkSet(
  {
    host,
    logger: silentLogger,
    clock: systemClock,
    dataDir: join(dir, "data"),
    record: () => {},
    ...(where === "thread" ? { thread: { priority: "normal", nice: 0 } as const } : {}),
  },
  config,
);
const cpu0 = threadCpu();
const start = performance.now();
await sinks.start(config);
for (;;) {
  const s = host.status("sink:s");
  if (s !== undefined && s.lagEvents === 0) break;
  await new Promise((r) => setTimeout(r, 20));
}
const secs = (performance.now() - start) / 1000;
const cpu = threadCpu();
const per = (k: string): string => ((((cpu.get(k) ?? 0) - (cpu0.get(k) ?? 0)) * 1e3) / n).toFixed(0);
console.log(
  `${type} on the ${where === "thread" ? "sink thread" : "main thread"}: ${n} results (${n * 4} points) caught up in ${secs.toFixed(1)} s = ${Math.round(n / secs)} results/s, ${Math.round((n * 4) / secs)} points/s; ${(bytes / 1048576).toFixed(1)} MiB sent; CPU per result: main thread ${per("main")} µs, sink thread ${per("sinks")} µs, other threads ${per("other")} µs`,
);
await sinks.stop();
await host.stop();
await core.close();
rx.close();
rmSync(dir, { recursive: true, force: true });
