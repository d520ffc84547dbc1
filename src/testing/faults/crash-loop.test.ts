/**
 * Fault case: a crash loop. The real binary, ingesting steadily, is killed -9 within 1.5 s of its
 * "listening" line, over and over (quick mode 16 kills, long mode 100; FAULTS_CRASH_LOOP_KILLS
 * overrides), with a few kills during a start too (before "listening", where a start that replayed
 * many events takes its snapshot). A server that never lived long enough for a snapshot used to
 * replay a longer log at every start, until a start took over a minute (docs/reliability.md). Now a
 * start that replayed at least `-snapshot-after-replay` events snapshots before it serves, so what
 * each start replays (the "store opened" line's `events`) stays below that bound plus what the run
 * before it appended. Also: no acknowledged batch is lost, and the last start serves what a fresh
 * replay of the log gives. Reported: each start's time to "listening", the first and last ten's
 * medians (not asserted: wall time on a shared machine says little).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openEventLogReader } from "../../store/event-log.js";
import { MAIN_JS, type ServerProcess, startServer } from "../server-process.js";
import {
  byMode,
  ingest,
  loggedBatches,
  passiveFleet,
  quantile,
  reportFigures,
  START_TIMEOUT_MS,
  seededRandom,
  sleep,
} from "./harness.js";
import { assertServesReplay } from "./replay-compare.js";

const SHAPE = { hosts: 20, services: 10 };
const KILLS = Number(process.env.FAULTS_CRASH_LOOP_KILLS ?? byMode(16, 100));
const SEED = Number(process.env.FAULTS_SEED ?? Date.now() % 1_000_000);
/** Far below the default (100,000), so that the quick mode's few kills cross it many times. */
const BOUND = 2_000;

const dir = mkdtempSync(join(tmpdir(), "lookout-faults-crash-loop-"));
const dataDir = join(dir, "data");
const configFile = join(dir, "fleet.cue");
writeFileSync(configFile, passiveFleet(SHAPE.hosts, SHAPE.services));
const logs: string[] = [];
let failed = false;
after(() => {
  // Every start's log stays for a failed run.
  if (failed) {
    writeFileSync(join(dir, "servers.log"), logs.join("\n"));
    process.stderr.write(`crash-loop: logs kept in ${dir}\n`);
  } else rmSync(dir, { recursive: true, force: true });
});

const ARGS = ["-config", configFile, "-data-dir", dataDir, "-snapshot-after-replay", String(BOUND)];

/** What a start recovered, from its "store opened" line. */
interface Opened {
  readonly replayed: number;
  readonly applied: number;
  readonly events: number;
  readonly snapshot: boolean;
}

function opened(log: string): Opened {
  const line = log.split("\n").find((l) => l.includes('"msg":"store opened"'));
  assert.ok(line !== undefined, `a "store opened" line:\n${log}`);
  const o = JSON.parse(line) as Opened;
  assert.equal(typeof o.events, "number", line);
  return o;
}

/** The last event sequence number in the log. */
function lastEventSeq(): number {
  const reader = openEventLogReader(dataDir);
  try {
    return reader.lastSeq();
  } finally {
    reader.close();
  }
}

/** Starts the binary and kills it -9 after `delayMs`, whether or not it got to listen. */
async function killDuringStart(delayMs: number): Promise<void> {
  const child = spawn(process.execPath, [MAIN_JS, "-listen", "127.0.0.1:0", ...ARGS], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  });
  let log = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (c: string) => {
    log += c;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await sleep(delayMs);
  child.kill("SIGKILL");
  await exited;
  logs.push(`--- killed during start after ${delayMs} ms\n${log}`);
}

describe("fault: crash loop (kill -9 soon after every start)", () => {
  it(`replays a bounded log at every start over ${KILLS} kills (seed ${SEED})`, async (t) => {
    try {
      const random = seededRandom(SEED);
      const acked = new Set<number>();
      const startMs: number[] = [];
      const replayedEvents: number[] = [];
      let snapshots = 0;
      let lastSeqBefore: number | undefined;
      const start = async (): Promise<{ srv: ServerProcess; o: Opened }> => {
        const began = performance.now();
        const srv = await startServer(ARGS, { timeoutMs: START_TIMEOUT_MS });
        startMs.push(performance.now() - began);
        logs.push(`--- start ${startMs.length}\n${srv.stderr()}`);
        const o = opened(srv.stderr());
        // Nothing is ingested yet: the log as this start left it.
        const seq = lastEventSeq();
        if (lastSeqBefore !== undefined) {
          // What the run before appended, its enqueued tail included (this start applied it).
          const appended = seq - lastSeqBefore;
          assert.ok(
            o.events < BOUND + appended,
            `start ${startMs.length} replayed ${o.events} events: under the bound (${BOUND}) plus what the run before appended (${appended})`,
          );
        }
        lastSeqBefore = seq;
        // The fleet's 220 records are under the bound: it alone decides.
        assert.equal(
          o.snapshot,
          o.events >= BOUND,
          `start ${startMs.length} snapshots exactly when it replayed ${BOUND} events or more (${o.events})`,
        );
        replayedEvents.push(o.events);
        if (o.snapshot) snapshots++;
        return { srv, o };
      };
      for (let kill = 0; kill < KILLS; kill++) {
        const { srv } = await start();
        let ended = false;
        const run = ingest(srv.url, SHAPE, {
          first: kill * 1_000_000,
          size: 50,
          json: 2,
          grpc: 2,
          ended: () => ended,
        });
        await sleep(Math.floor(random() * 1500));
        ended = true;
        await srv.kill();
        logs.push(`--- start ${startMs.length}, killed after listening\n${srv.stderr()}`);
        const { acked: ok, failures } = await run;
        assert.deepEqual(failures, [], `kill ${kill}: every answer before the kill was OK`);
        for (const n of ok) acked.add(n);
        // Now and then a kill while starting: anywhere in recovery, in the snapshot after it, or later.
        if (kill % 5 === 4) await killDuringStart(Math.floor(random() * (startMs.at(-1) ?? 1000)));
      }
      const { srv } = await start();
      try {
        const logged = loggedBatches(dataDir);
        assert.deepEqual(
          [...acked].filter((n) => !logged.has(n)),
          [],
          "every batch answered OK is in the log",
        );
        await assertServesReplay(srv.url, configFile, dataDir);
      } finally {
        assert.equal(await srv.stop(), 0);
      }
      const median = (xs: number[]): number => Math.round(quantile(xs, 0.5));
      reportFigures(t, "crash-loop", {
        kills: KILLS,
        seed: SEED,
        bound: BOUND,
        acknowledgedBatches: acked.size,
        startsThatSnapshotted: snapshots,
        replayedEventsMax: Math.max(...replayedEvents),
        replayedEventsFirst10Median: median(replayedEvents.slice(0, 10)),
        replayedEventsLast10Median: median(replayedEvents.slice(-10)),
        startMsFirst10Median: median(startMs.slice(0, 10)),
        startMsLast10Median: median(startMs.slice(-10)),
        startMsMax: Math.round(Math.max(...startMs)),
      });
    } catch (e) {
      failed = true;
      throw e;
    }
  });
});
