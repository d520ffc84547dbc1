import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { systemClock } from "../../model/clock.js";
import { eventsFromNdjson, runSinkContract, type SeenEvent } from "../contract.case.js";
import { freePort, startFaultProxy, waitReady } from "../fault-proxy.case.js";
import type { EventRecord } from "../sink.js";
import { createArchiveSink } from "./archive-sink.js";
import { parseSegmentName } from "./segment-name.js";

/** Events of every segment in a directory, in name order (how docs/sinks.md restores an archive). */
function readDir(dir: string): SeenEvent[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => parseSegmentName(n) !== undefined);
  } catch {
    return [];
  }
  return names.sort().flatMap((n) => eventsFromNdjson(gunzipSync(readFileSync(join(dir, n))).toString()));
}

runSinkContract({
  type: "archive",
  label: "archive to file://",
  async backend(_name, dir) {
    const out = join(dir, "archive");
    return {
      fields: { url: pathToFileURL(out).toString(), segmentBytes: 200, input: "events" },
      readPoints: async () => [],
      readEvents: async () => readDir(out),
      metrics: false,
      // Down: a regular file where the archive directory should be.
      fault(m) {
        if (m === "down") writeFileSync(out, "");
        else rmSync(out, { force: true });
      },
      faults: ["down"],
      async stop() {},
    };
  },
});

/** Debian's nginx with WebDAV PUT on a loopback port, one for this file. */
let nginx: ChildProcess | undefined;
let nginxUrl = "";
let nginxDir = "";

before(async () => {
  nginxDir = mkdtempSync(join(tmpdir(), "lookout-nginx-"));
  mkdirSync(join(nginxDir, "www"));
  const port = await freePort();
  const tmp = (n: string) => `${n}_temp_path ${join(nginxDir, n)};`;
  writeFileSync(
    join(nginxDir, "nginx.conf"),
    `daemon off;
user root;
worker_processes 1;
pid ${join(nginxDir, "nginx.pid")};
error_log ${join(nginxDir, "error.log")} error;
events { worker_connections 64; }
http {
  access_log off;
  ${tmp("client_body")} ${tmp("proxy")} ${tmp("fastcgi")} ${tmp("uwsgi")} ${tmp("scgi")}
  client_max_body_size 64m;
  server {
    listen 127.0.0.1:${port};
    root ${join(nginxDir, "www")};
    location / { dav_methods PUT; create_full_put_path on; dav_access user:rw; }
  }
}
`,
  );
  nginx = spawn("nginx", ["-c", join(nginxDir, "nginx.conf"), "-p", nginxDir], { stdio: "ignore" });
  nginxUrl = `http://127.0.0.1:${port}`;
  writeFileSync(join(nginxDir, "www", "ready"), "");
  await waitReady(`${nginxUrl}/ready`);
});

after(async () => {
  // SIGTERM: the master stops its worker before it exits (SIGKILL would orphan the worker).
  const n = nginx;
  if (n?.pid !== undefined && n.exitCode === null) {
    const exited = new Promise((r) => n.once("exit", r));
    process.kill(n.pid, "SIGTERM");
    await exited;
  }
  rmSync(nginxDir, { recursive: true, force: true });
});

runSinkContract({
  type: "archive",
  label: "archive to nginx WebDAV PUT",
  async backend(name) {
    const proxy = await startFaultProxy(nginxUrl);
    return {
      fields: { url: `${proxy.url}/${name}/`, segmentBytes: 200, input: "events" },
      readPoints: async () => [],
      // Read from nginx's root: what the PUTs stored, byte for byte.
      readEvents: async () => readDir(join(nginxDir, "www", name)),
      metrics: false,
      fault: proxy.fault,
      faults: ["down", "slow", "garbage"],
      stop: proxy.stop,
    };
  },
});

const ev = (seq: number): EventRecord => ({
  kind: "event",
  seq,
  event: { type: "ConfigApplied", at: seq, hosts: 0, services: 0 } as never,
});

describe("archive sink", () => {
  it("stages to the data dir until a segment is full, names it by its seqs, and never stages a record twice", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lookout-archive-"));
    try {
      const out = join(dir, "out");
      const s = createArchiveSink({
        url: pathToFileURL(out).toString(),
        segmentBytes: 150,
        stagingPath: join(dir, "data", "sinks", "a", "segment.ndjson"),
        clock: systemClock,
      });
      const signal = new AbortController().signal;
      const send = (seqs: number[]) =>
        s.send({ records: seqs.map(ev), firstSeq: seqs[0] ?? 0, lastSeq: seqs.at(-1) ?? 0 }, signal);
      assert.equal((await send([1])).kind, "delivered");
      assert.deepEqual(readDir(out), [], "one small event stays staged");
      assert.equal((await send([2, 3])).kind, "delivered");
      assert.equal((await send([2, 3])).kind, "delivered", "a repeated batch");
      assert.equal((await send([4, 5, 6])).kind, "delivered");
      await s.close();
      const names = readdirSync(out).sort();
      assert.ok(names.length >= 2, String(names));
      assert.equal(names[0], "0000000000000001-0000000000000003.ndjson.gz");
      const seqs = readDir(out).map((e) => e.seq);
      assert.deepEqual(seqs, [1, 2, 3, 4, 5, 6]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
