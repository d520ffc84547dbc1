import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { compress, uncompress } from "snappyjs";
import { runSinkContract, type SeenPoint } from "../contract.case.js";
import { freePort, startFaultProxy, waitReady } from "../fault-proxy.case.js";
import type { MetricPoint } from "../sink.js";
import { createRemoteWriteSink } from "./remote-write-sink.js";
import { encodeWriteRequest, seriesLabels } from "./write-request.js";

/** Debian's Prometheus (2.42) with the remote-write receiver, on a loopback port, one for this file. */
let prom: ChildProcess | undefined;
let promUrl = "";
let promDir = "";

before(async () => {
  promDir = mkdtempSync(join(tmpdir(), "lookout-prom-"));
  const port = await freePort();
  writeFileSync(join(promDir, "prometheus.yml"), "global:\n  scrape_interval: 1h\n");
  prom = spawn(
    "prometheus",
    [
      `--config.file=${join(promDir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(promDir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--web.enable-remote-write-receiver",
      "--web.enable-admin-api",
      "--log.level=error",
    ],
    { stdio: "ignore" },
  );
  promUrl = `http://127.0.0.1:${port}`;
  await waitReady(`${promUrl}/-/ready`);
});

after(() => {
  if (prom?.pid !== undefined) process.kill(prom.pid, "SIGKILL");
  rmSync(promDir, { recursive: true, force: true });
});

interface Matrix {
  data: { result: { metric: Record<string, string>; values: [number, string][] }[] };
}

/** Every sample of lookout_perfdata in the last hour, through PromQL. */
async function readBack(): Promise<SeenPoint[]> {
  const q = encodeURIComponent("lookout_perfdata[1h]");
  const r = (await (
    await fetch(`${promUrl}/api/v1/query?query=${q}`, { signal: AbortSignal.timeout(10_000) })
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
}

runSinkContract({
  type: "remote_write",
  async backend() {
    // Each test starts from an empty TSDB as PromQL sees it.
    await fetch(
      `${promUrl}/api/v1/admin/tsdb/delete_series?match[]=${encodeURIComponent('{__name__=~".+"}')}`,
      {
        method: "POST",
      },
    );
    const proxy = await startFaultProxy(promUrl);
    return {
      fields: { url: `${proxy.url}/api/v1/write` },
      readPoints: readBack,
      readEvents: async () => [],
      events: false,
      ordered: false,
      fault: proxy.fault,
      faults: ["down", "slow", "garbage"],
      stop: proxy.stop,
    };
  },
});

const point = (o: Partial<MetricPoint>): MetricPoint => ({
  kind: "metric",
  seq: 1,
  time: Date.now(),
  host: "web1",
  service: "http",
  zone: "eu",
  labels: { env: "prod", "app.tier": "web", host: "shadowed" },
  name: "rta",
  value: 1.5,
  unit: "ms",
  warn: "",
  crit: "",
  ...o,
});

describe("remote_write sink", () => {
  it("labels are sorted, Prometheus-safe, and Lookout's own win over object labels", () => {
    assert.deepEqual(seriesLabels(point({})), [
      ["__name__", "lookout_perfdata"],
      ["app_tier", "web"],
      ["env", "prod"],
      ["host", "web1"],
      ["perfdata", "rta"],
      ["service", "http"],
      ["unit", "ms"],
      ["zone", "eu"],
    ]);
  });

  it("the body is snappy block format of a WriteRequest", () => {
    const raw = encodeWriteRequest([point({})]);
    assert.ok(raw.length > 20);
    // The label name __name__ appears verbatim in the protobuf.
    assert.ok(Buffer.from(raw).includes(Buffer.from("lookout_perfdata")));
    assert.deepEqual(uncompress(compress(raw)), raw);
  });

  it("a 400 from Prometheus (out-of-bounds sample) is refused for good, never retried", async () => {
    const s = createRemoteWriteSink({ url: `${promUrl}/api/v1/write` });
    const old = point({ time: Date.now() - 30 * 86_400_000 });
    const r = await s.send({ records: [old], firstSeq: 1, lastSeq: 1 }, new AbortController().signal);
    assert.equal(r.kind, "rejected", JSON.stringify(r));
  });
});
