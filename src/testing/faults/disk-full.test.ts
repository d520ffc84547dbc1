/**
 * Fault case 3: the data directory's filesystem fills up. The test mounts a small tmpfs (we run as
 * root; the case is skipped, saying why, only when mount is impossible) as -data-dir, ingests, fills
 * the rest with a filler file, and checks: writes answer a clear Connect error
 * (`resource_exhausted` or `unavailable`, never `internal`), reads keep working, the server keeps
 * running, it accepts writes again by itself once the filler is deleted, and after a restart every
 * batch ever answered OK is in the log.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type ServerProcess, startServer } from "../server-process.js";
import {
  batchJson,
  loggedBatches,
  passiveFleet,
  post,
  reportFigures,
  START_TIMEOUT_MS,
  sleep,
} from "./harness.js";

const SHAPE = { hosts: 10, services: 5 };
const BATCH = 50;
const INGEST = "/svc.v1.CommandService/ProcessCheckResults";

const dir = mkdtempSync(join(tmpdir(), "lookout-faults-disk-"));
const mnt = join(dir, "mnt");
mkdirSync(mnt);
const configFile = join(dir, "fleet.cue");
writeFileSync(configFile, passiveFleet(SHAPE.hosts, SHAPE.services));
let mounted = false;
let why = "";
try {
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=24m", "tmpfs", mnt], { stdio: "pipe" });
  mounted = true;
} catch (e) {
  why = `mount -t tmpfs is impossible here (${String((e as { stderr?: Buffer }).stderr ?? e).trim()})`;
}
after(() => {
  if (mounted) execFileSync("umount", ["-l", mnt]);
  rmSync(dir, { recursive: true, force: true });
});

const dataDir = join(mnt, "data");
const filler = join(mnt, "filler");

/** Writes zeros to `path` until the filesystem is full; returns the bytes written. */
function fill(path: string): number {
  const fd = openSync(path, "w");
  const block = Buffer.alloc(64 * 1024);
  let total = 0;
  try {
    for (;;) total += writeSync(fd, block);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
  } finally {
    closeSync(fd);
  }
  // Byte by byte for the last partial block.
  const fd2 = openSync(path, "a");
  try {
    for (;;) total += writeSync(fd2, Buffer.alloc(1));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
  } finally {
    closeSync(fd2);
  }
  return total;
}

/** One batch over Connect JSON; the Connect code of the answer ("ok" on 200). */
async function send(url: string, n: number): Promise<{ code: string; message: string }> {
  const r = await post(url, INGEST, "application/json", batchJson(SHAPE, n, BATCH));
  if (r.status === 200) return { code: "ok", message: "" };
  const e = JSON.parse(r.body) as { code: string; message: string };
  return { code: e.code, message: e.message };
}

describe("fault: disk full on the data directory", { skip: mounted ? false : why }, () => {
  it("refuses writes clearly, keeps reads, loses nothing acknowledged, recovers by itself", async (t) => {
    let srv: ServerProcess | undefined = await startServer(["-config", configFile, "-data-dir", dataDir], {
      timeoutMs: START_TIMEOUT_MS,
    });
    const acked = new Set<number>();
    const refusals = new Map<string, number>();
    let n = 0;
    try {
      for (; n < 20; n++) {
        assert.equal((await send(srv.url, n)).code, "ok");
        acked.add(n);
      }
      // Eight writers at full speed while the disk fills up, and on until the server has refused
      // 40 writes: SQLite may still have room in pages it holds, so some writes land after the
      // filler, and the events of an accepted batch may find no room (the writer keeps them).
      let refused = 0;
      let filled = 0;
      const wrong: string[] = [];
      const writers = Array.from({ length: 8 }, async () => {
        while (refused < 40 && wrong.length === 0 && n < 100_000) {
          const b = n++;
          const a = await send(srv?.url as string, b);
          if (a.code === "ok") {
            acked.add(b);
            continue;
          }
          refused++;
          const key = `${a.code}: ${a.message}`;
          refusals.set(key, (refusals.get(key) ?? 0) + 1);
          if (a.code !== "resource_exhausted" && a.code !== "unavailable") wrong.push(key);
        }
      });
      await sleep(50);
      filled = fill(filler);
      await Promise.all(writers);
      assert.deepEqual(
        wrong,
        [],
        "a write on a full disk is refused clearly (resource_exhausted or unavailable)",
      );
      assert.ok(refused > 0, `the server refused writes once the disk was full (filler ${filled} bytes)`);
      // Reads keep working.
      const list = await post(srv.url, "/svc.v1.QueryService/ListStatus", "application/json", "{}");
      assert.equal(list.status, 200, list.body);
      assert.equal(
        (JSON.parse(list.body) as { statuses: unknown[] }).statuses.length,
        SHAPE.hosts * (SHAPE.services + 1),
      );
      assert.equal(srv.child.exitCode, null, "the server is still running");

      // Space returns: the server accepts writes again by itself, within 30 s.
      rmSync(filler);
      const freed = performance.now();
      let recovered = false;
      for (; performance.now() - freed < 30_000; n++) {
        const a = await send(srv.url, n);
        if (a.code === "ok") {
          acked.add(n);
          recovered = true;
          break;
        }
        await sleep(200);
      }
      assert.ok(recovered, "writes are accepted again once space returns");
      const recoveryMs = Math.round(performance.now() - freed);
      for (let k = 0; k < 10; k++, n++) {
        assert.equal((await send(srv.url, n)).code, "ok");
        acked.add(n);
      }
      assert.equal(await srv.stop(), 0, "a clean stop after the disk was full");
      srv = await startServer(["-config", configFile, "-data-dir", dataDir], { timeoutMs: START_TIMEOUT_MS });
      const logged = loggedBatches(dataDir);
      assert.deepEqual(
        [...acked].filter((b) => !logged.has(b)),
        [],
        "every batch answered OK is in the log after a restart",
      );
      reportFigures(t, "disk-full", {
        acknowledged: acked.size,
        lost: [...acked].filter((b) => !logged.has(b)).length,
        refusals: Object.fromEntries(refusals),
        recoveryMs,
      });
    } finally {
      await srv?.stop();
    }
  });
});
