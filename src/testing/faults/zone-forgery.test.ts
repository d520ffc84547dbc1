/**
 * Fault case: forged results from zones' workers. A real nats-server and the real server; the test
 * publishes generated result messages on the results subjects of z1, z2, the local zone and a
 * subject no zone has: any object of the config or none, any claimed zone and worker name (long
 * ones too), fields of the wrong type, garbage bytes — honest results among them. An independent
 * oracle says which may be applied (a well-formed result, on its zone's subject, claiming that
 * zone, for an active check of it). Every other one is refused: counted by the server, the objects
 * it named unchanged (the default zone's passive service stays as set, acknowledged), the stream
 * drained (refusals are acknowledged), audit records bounded; each active object shows the last
 * honest result published for it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { ResultMessage } from "../../zones/job.js";
import { RESULTS_CONSUMER, RESULTS_STREAM, resultSubject } from "../../zones/names.js";
import { REFUSAL_AUDITS_PER_WINDOW } from "../../zones/result-refusal.js";
import { startNatsCluster } from "../peers/index.js";
import { type ServerProcess, startServer } from "../server-process.js";
import { auditRecords, FORGERY_CONFIG, postJson, statusOf, waitFor } from "../zone-forgery.js";
import { byMode, metricsText, reportFigures, rssMiB, START_TIMEOUT_MS, seededRandom } from "./harness.js";

const MESSAGES = byMode(300, 20_000);
const SEED = Number(process.env.FAULTS_SEED ?? Date.now() % 1_000_000);

const dir = mkdtempSync(join(tmpdir(), "lookout-faults-zones-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The config's objects: zone and whether the check is active (FORGERY_CONFIG, said again here). */
const OBJECTS: readonly [string, string | undefined, string, boolean][] = [
  ["web1", undefined, "default", false],
  ["web1", "http", "default", false],
  ["r1", undefined, "z1", false],
  ["r1", "s", "z1", true],
  ["r1", "p", "z1", false],
  ["r2", undefined, "z2", false],
  ["r2", "s", "z2", true],
];
/** The subjects published on, and the zone each belongs to. */
const SUBJECT_ZONES = ["z1", "z2", "default", "nowhere"];
const SUBJECTS = SUBJECT_ZONES.map(resultSubject);
const ZONES = ["z1", "z2", "default", "nowhere", "", "z1 "];

interface Forged {
  readonly subject: string;
  readonly data: Uint8Array;
  /** The oracle: applied, and to which object. */
  readonly applies?: string;
  readonly output?: string;
}

function generate(n: number, random: () => number): Forged[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const out: Forged[] = [];
  const base = Date.now();
  for (let i = 0; i < n; i++) {
    const subject = pick(SUBJECTS);
    const kind = random();
    if (kind < 0.05) {
      out.push({
        subject,
        data: new Uint8Array(Array.from({ length: 1 + (i % 64) }, () => (random() * 256) | 0)),
      });
      continue;
    }
    const [host, service, objectZone, active] =
      kind < 0.1 ? (["nowhere", "x", "z1", true] as const) : pick(OBJECTS);
    // Half the time the zone the subject belongs to, so that honest ones are common.
    const zone = random() < 0.5 ? (SUBJECT_ZONES[SUBJECTS.indexOf(subject)] as string) : pick(ZONES);
    const output = `forged ${i}`;
    const msg: Record<string, unknown> = {
      v: 1,
      key: service === undefined ? host : `${host}!${service}`,
      host,
      ...(service === undefined ? {} : { service }),
      zone,
      worker: random() < 0.05 ? "w".repeat(5_000) : `evil-${i % 7}`,
      due: base + i,
      checkedAt: base + i,
      durationMs: 1,
      exitStatus: i % 4,
      output,
      longOutput: "",
      perfdata: [],
    } satisfies Partial<Record<keyof ResultMessage, unknown>>;
    let wellFormed = true;
    if (random() < 0.05) {
      msg.exitStatus = pick([7, -1, "0", null]);
      wellFormed = false;
    }
    const honest =
      wellFormed &&
      host !== "nowhere" &&
      active &&
      zone === objectZone &&
      subject === resultSubject(objectZone) &&
      objectZone !== "default";
    out.push({
      subject,
      data: new TextEncoder().encode(JSON.stringify(msg)),
      ...(honest ? { applies: service === undefined ? host : `${host}!${service}`, output } : {}),
    });
  }
  return out;
}

describe("fault: forged results from zones' workers", () => {
  it(`refuses every result outside its subject's zone's active checks (${MESSAGES} messages, seed ${SEED})`, async (t) => {
    writeFileSync(join(dir, "z.cue"), FORGERY_CONFIG);
    const nats = await startNatsCluster(1);
    let srv: ServerProcess | undefined;
    try {
      srv = await startServer(
        [
          "-config",
          join(dir, "z.cue"),
          "-data-dir",
          join(dir, "data"),
          "-nats",
          nats.urls,
          "-no-worker-grace",
          "1h",
        ],
        { timeoutMs: START_TIMEOUT_MS },
      );
      const s = srv;
      const cmd = `${s.url}/svc.v1.CommandService`;
      await postJson(`${cmd}/ProcessCheckResult`, {
        host: "web1",
        service: "http",
        exitStatus: 2,
        output: "DOWN",
      });
      await postJson(`${cmd}/AcknowledgeProblem`, {
        target: { object: { host: "web1", service: "http" } },
        author: "ops",
      });
      await waitFor(
        "acknowledged",
        async () => (await statusOf(s.url, "web1", "http"))?.acknowledgement !== undefined,
      );
      const before = new Map<string, unknown>();
      for (const [h, sv] of OBJECTS)
        before.set(sv === undefined ? h : `${h}!${sv}`, await statusOf(s.url, h, sv));

      const messages = generate(MESSAGES, seededRandom(SEED));
      const nc = await connect({ servers: nats.urls });
      const started = performance.now();
      try {
        const js = jetstream(nc);
        let acks: Promise<unknown>[] = [];
        for (const m of messages) {
          acks.push(js.publish(m.subject, m.data));
          if (acks.length >= 200) {
            await Promise.all(acks);
            acks = [];
          }
        }
        await Promise.all(acks);
      } finally {
        await nc.close();
      }
      // Every one is in the results stream (`lookout.result.>`), the subject of no zone too.
      const expected = messages;
      const honest = expected.filter((m) => m.applies !== undefined);
      const refusedWant = expected.length - honest.length;
      const refusedTotal = async () => {
        const text = await metricsText(s.url);
        let sum = 0;
        for (const m of text.matchAll(/^lookout_zone_results_refused_total\{[^}]*\} (\d+)$/gm))
          sum += Number(m[1]);
        return sum;
      };
      await waitFor(
        `${refusedWant} refusals`,
        async () => (await refusedTotal()) >= refusedWant,
        byMode(60_000, 600_000),
      );
      // Refusals are counted as a batch is read, before it is logged; the server's pending gauge is
      // a snapshot taken every few seconds, 0 from before the publishing too. So the drain is read
      // from JetStream itself: every message delivered and acknowledged, hence logged.
      const watcher = await connect({ servers: nats.urls });
      try {
        const jsm = await jetstreamManager(watcher);
        await waitFor("the stream drained", async () => {
          const info = await jsm.consumers.info(RESULTS_STREAM, RESULTS_CONSUMER);
          return (
            info.num_pending + info.num_ack_pending === 0 && info.delivered.stream_seq >= messages.length
          );
        });
      } finally {
        await watcher.close();
      }
      await waitFor("the metrics say so too", async () =>
        /^lookout_zone_results_pending 0$/m.test(await metricsText(s.url)),
      );
      const drainedMs = performance.now() - started;
      assert.equal(await refusedTotal(), refusedWant, "each refused once, nothing else refused");

      // Objects no honest result named are as they were; the others show their last honest result.
      const last = new Map<string, string>();
      for (const m of honest) last.set(m.applies as string, m.output as string);
      // Reads come from the projection, which follows the log: give it a moment to reach the last
      // logged result (an older result applied last would never get there and fail below).
      await waitFor(
        "the projection at the last honest results",
        async () => {
          for (const [key, want] of last) {
            const [h, sv] = key.split("!") as [string, string | undefined];
            if ((await statusOf(s.url, h, sv))?.output !== want) return false;
          }
          return true;
        },
        10_000,
      ).catch(() => {});
      for (const [h, sv] of OBJECTS) {
        const key = sv === undefined ? h : `${h}!${sv}`;
        const now = await statusOf(s.url, h, sv);
        const want = last.get(key);
        if (want === undefined) assert.deepEqual(now, before.get(key), key);
        else assert.equal(now?.output, want, key);
      }
      const audited = auditRecords(join(dir, "data")).length;
      assert.ok(audited >= Math.min(refusedWant, REFUSAL_AUDITS_PER_WINDOW), `${audited} audit records`);
      assert.ok(audited <= refusedWant, `${audited} audit records for ${refusedWant} refusals`);
      const lines = s
        .stderr()
        .split("\n")
        .filter((l) => l.includes("refused a result from a zone's worker"));
      assert.ok(lines.length <= refusedWant);
      assert.ok(
        lines.every((l) => l.length < 4_096),
        "log lines stay short whatever the sender names",
      );
      const reasons: Record<string, number> = {};
      for (const m of (await metricsText(s.url)).matchAll(
        /^lookout_zone_results_refused_total\{zone="[^"]*",reason="([^"]+)"\} (\d+)$/gm,
      ))
        reasons[m[1] as string] = (reasons[m[1] as string] ?? 0) + Number(m[2]);
      reportFigures(t, "zone-forgery", {
        seed: SEED,
        messages: MESSAGES,
        inStream: expected.length,
        honest: honest.length,
        refused: refusedWant,
        reasons,
        auditRecords: audited,
        logLines: lines.length,
        drainedMs: Math.round(drainedMs),
        rssMiB: rssMiB(s.child.pid).rss,
      });
      assert.equal(await s.stop(), 0);
      srv = undefined;
    } finally {
      await srv?.kill();
      await nats.stop();
    }
  });
});
