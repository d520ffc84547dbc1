/**
 * Fault case 2: SIGHUP and SIGTERM storms during full-speed ingestion (gRPC and Connect JSON).
 * SIGHUPs with a valid document, then with a rejected one: the server never stops serving, every
 * signal it received is one reload, and `lookout_config_reloads_total{result}` counts them right
 * (success for the valid, rejected for the bad, no error). Then SIGTERMs mixed with SIGHUPs while
 * ingesting: one clean stop (exit 0), and after a restart every batch answered OK is in the log.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type ServerProcess, startServer } from "../server-process.js";
import {
  byMode,
  ingest,
  loggedBatches,
  metricValue,
  passiveFleet,
  reportFigures,
  START_TIMEOUT_MS,
  sleep,
} from "./harness.js";

const SHAPE = { hosts: 10, services: 5 };
const HUPS = byMode(5, 50);
const ROUNDS = byMode(1, 5);

const dir = mkdtempSync(join(tmpdir(), "lookout-faults-signals-"));
const dataDir = join(dir, "data");
const configFile = join(dir, "fleet.cue");
const valid = passiveFleet(SHAPE.hosts, SHAPE.services);
after(() => rmSync(dir, { recursive: true, force: true }));

const start = (): Promise<ServerProcess> =>
  startServer(["-config", configFile, "-data-dir", dataDir], { timeoutMs: START_TIMEOUT_MS });
const received = (srv: ServerProcess, signal: string): number =>
  srv.stderr().split(`"msg":"signal received","signal":"${signal}"`).length - 1;
const reloads = async (srv: ServerProcess, result: string): Promise<number> =>
  (await metricValue(srv.url, `lookout_config_reloads_total{result="${result}"}`)) ?? Number.NaN;

const coalesced = async (srv: ServerProcess): Promise<number> =>
  (await metricValue(srv.url, "lookout_config_reloads_coalesced_total")) ?? Number.NaN;

/**
 * Waits until every SIGHUP the server logged is answered: by a reload of its own, counted by
 * result, or by one that was already waiting its turn (coalesced). Reloads queue up, and each takes
 * about a second on a busy machine (a worker loads the document), so the wait grows with them.
 */
async function settled(
  srv: ServerProcess,
): Promise<{ success: number; rejected: number; error: number; coalesced: number }> {
  for (const began = performance.now(); performance.now() - began < 60_000 + HUPS * 2 * 5_000; ) {
    const counts = {
      success: await reloads(srv, "success"),
      rejected: await reloads(srv, "rejected"),
      error: await reloads(srv, "error"),
      coalesced: await coalesced(srv),
    };
    const answered = counts.success + counts.rejected + counts.error + counts.coalesced;
    if (answered === received(srv, "SIGHUP")) return counts;
    await sleep(200);
  }
  throw new Error(`reloads never caught up with the signals:\n${srv.stderr().slice(-2000)}`);
}

/** Sends `count` signals, `gapMs` apart. */
async function storm(
  srv: ServerProcess,
  signal: NodeJS.Signals,
  count: number,
  gapMs: number,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    srv.child.kill(signal);
    await sleep(gapMs);
  }
}

describe("fault: signal storms during ingestion", () => {
  it(`counts every reload right and loses nothing (${HUPS} SIGHUPs a phase, ${ROUNDS} SIGTERM rounds)`, async (t) => {
    writeFileSync(configFile, valid);
    const acked = new Set<number>();
    let hups = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const srv = await start();
      let ended = false;
      const run = ingest(srv.url, SHAPE, {
        first: round * 1_000_000,
        size: 100,
        json: 3,
        grpc: 3,
        ended: () => ended,
      });
      try {
        if (round === 0) {
          // A valid document: every reload succeeds.
          await storm(srv, "SIGHUP", HUPS, 20);
          const a = await settled(srv);
          assert.deepEqual(
            { ...a, success: a.success + a.coalesced, coalesced: 0 },
            { success: received(srv, "SIGHUP"), rejected: 0, error: 0, coalesced: 0 },
          );
          assert.ok(a.success >= 1, "at least one reload ran");
          // A document the loader rejects: every reload is rejected, the old config keeps serving.
          writeFileSync(configFile, `${valid}\nhosts: 42\n`);
          await storm(srv, "SIGHUP", HUPS, 20);
          const b = await settled(srv);
          assert.equal(b.error, 0, "no reload errs");
          assert.equal(b.success, a.success, "a rejected document is not a success");
          assert.ok(b.rejected >= 1, "the bad document was loaded");
          assert.equal(
            b.rejected + b.coalesced - a.coalesced,
            received(srv, "SIGHUP") - a.success - a.coalesced,
            "every reload of the bad document is rejected",
          );
          assert.equal(await metricValue(srv.url, "lookout_config_last_reload_success"), 0);
          writeFileSync(configFile, valid);
          hups += received(srv, "SIGHUP");
        }
        assert.equal(srv.child.exitCode, null, "the server is still running");
        // SIGTERMs mixed with SIGHUPs while ingesting: one clean stop.
        const exited = new Promise<number | null>((resolve) =>
          srv.child.once("exit", (code) => resolve(code)),
        );
        for (let i = 0; i < 10; i++) {
          srv.child.kill(i % 2 === 0 ? "SIGTERM" : "SIGHUP");
          await sleep(5);
        }
        const code = await exited;
        ended = true;
        assert.equal(code, 0, `a clean stop under a signal storm:\n${srv.stderr().slice(-3000)}`);
      } finally {
        ended = true;
        if (srv.child.exitCode === null) await srv.kill();
      }
      const { acked: ok, failures } = await run;
      // A stopping server may refuse what arrives after the stop began; before it, nothing fails.
      void failures;
      for (const n of ok) acked.add(n);
    }
    const srv = await start();
    try {
      const logged = loggedBatches(dataDir);
      const lost = [...acked].filter((n) => !logged.has(n));
      assert.deepEqual(lost, [], "every batch answered OK is in the log");
      assert.ok(acked.size > 0);
      reportFigures(t, "signal-storm", {
        sighups: hups,
        sigtermRounds: ROUNDS,
        acknowledged: acked.size,
        lost: lost.length,
      });
    } finally {
      assert.equal(await srv.stop(), 0);
    }
  });
});
