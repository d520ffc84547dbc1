/**
 * Debian's Prometheus (2.42) with its remote-write receiver on a loopback port, for the remote_write
 * tests: one per test file, started in `before` and killed by PID in `after`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killChild } from "../../testing/peers/peer.js";
import type { SeenPoint } from "../contract.case.js";
import { freePort, waitReady } from "../fault-proxy.case.js";

export interface Prometheus {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** Every sample of `selector` in the last hour, through PromQL (default: all of lookout_perfdata). */
  readPoints(selector?: string): Promise<SeenPoint[]>;
  /** Deletes every series, so that PromQL sees an empty TSDB. */
  clear(): Promise<void>;
  stop(): Promise<void>;
}

interface Matrix {
  data: { result: { metric: Record<string, string>; values: [number, string][] }[] };
}

export async function startPrometheus(): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), "lookout-prom-"));
  const port = await freePort();
  writeFileSync(join(dir, "prometheus.yml"), "global:\n  scrape_interval: 1h\n");
  const child: ChildProcess = spawn(
    "prometheus",
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--web.enable-remote-write-receiver",
      "--web.enable-admin-api",
      "--log.level=error",
    ],
    { stdio: "ignore" },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/-/ready`);
  return {
    url,
    async readPoints(selector = "lookout_perfdata") {
      const q = encodeURIComponent(`${selector}[1h]`);
      const r = (await (
        await fetch(`${url}/api/v1/query?query=${q}`, { signal: AbortSignal.timeout(10_000) })
      ).json()) as Matrix;
      return r.data.result.flatMap((s) =>
        s.values.map(([t, v]) => ({
          host: s.metric.host ?? "",
          service: s.metric.service ?? "",
          name: s.metric.perfdata ?? "",
          value: Number(v),
          time: Math.round(t * 1000),
        })),
      );
    },
    async clear() {
      await fetch(
        `${url}/api/v1/admin/tsdb/delete_series?match[]=${encodeURIComponent('{__name__=~".+"}')}`,
        { method: "POST" },
      );
    },
    async stop() {
      await killChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
