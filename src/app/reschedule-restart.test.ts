import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { slotAtOrAfter } from "../engine/scheduler/slots.js";
import { curlJson } from "../testing/clients.js";
import { type Peer, startTcpListener } from "../testing/peers/tcp.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";

const LIST_STATUS = "/svc.v1.QueryService/ListStatus";
const LIST_HISTORY = "/svc.v1.QueryService/ListHistory";
const RESCHEDULE = "/svc.v1.CommandService/RescheduleCheck";
const DAY = 86_400_000;

/**
 * A service name whose daily grid slot is not within the next hour: its only runs in this test are
 * its first run and the rescheduled ones.
 */
function quietService(): string {
  for (let i = 0; ; i++) {
    const name = `probe${i}`;
    if (slotAtOrAfter(`web!${name}`, DAY, Date.now()) - Date.now() > 3_600_000) return name;
  }
}

let dir: string;
let peer: Peer;
let srv: ServerProcess | undefined;
const service = quietService();

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-resched-"));
  peer = await startTcpListener();
  await writeFile(
    join(dir, "lookout.cue"),
    `hosts: web: {
	address: "127.0.0.1"
	check: { type: "passive", freshness_threshold: "48h" }
	services: ${service}: check: {
		type:           "tcp"
		address:        "127.0.0.1:${peer.port}"
		check_interval: "24h"
	}
}
`,
  );
});
after(async () => {
  await srv?.stop();
  await peer.stop();
  await rm(dir, { recursive: true, force: true });
});

const start = async () => {
  srv = await startServer(["-config", join(dir, "lookout.cue"), "-data-dir", join(dir, "data")]);
  return srv;
};

/** The service's last check (ms), undefined while PENDING. */
async function lastCheck(s: ServerProcess): Promise<number | undefined> {
  const r = await curlJson(s.url + LIST_STATUS, JSON.stringify({ host: "web", service }));
  assert.equal(r.status, 200, r.body);
  const st = (JSON.parse(r.body) as { statuses?: { lastCheck?: string }[] }).statuses?.[0];
  return st?.lastCheck === undefined ? undefined : Date.parse(st.lastCheck);
}

async function waitForCheck(s: ServerProcess, after: number | undefined, what: string): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const t = await lastCheck(s);
    if (t !== undefined && (after === undefined || t > after)) return t;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}:\n${s.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function reschedule(s: ServerProcess, at: number): Promise<void> {
  const body = { target: { object: { host: "web", service } }, at: new Date(at).toISOString() };
  const r = await curlJson(s.url + RESCHEDULE, JSON.stringify(body));
  assert.equal(r.status, 200, r.body);
}

test("a reschedule that a crash interrupts still runs at its time after the restart, or at once once past", async () => {
  let s = await start();
  // A new object's first check runs within seconds (24 h interval: its grid slot is hours away).
  const first = await waitForCheck(s, undefined, "the first check");

  // 1. A time ahead: killed before it; the restarted server runs it then, not at start-up.
  const at1 = Date.now() + 8_000;
  await reschedule(s, at1);
  await s.kill();
  s = await start();
  const second = await waitForCheck(s, first, "the rescheduled check after the restart");
  assert.ok(second >= at1, `ran ${at1 - second} ms before its time`);

  // 2. A time that passes while the server is down: it runs at once on start-up.
  const at2 = Date.now() + 1_000;
  await reschedule(s, at2);
  await s.kill();
  await new Promise((r) => setTimeout(r, Math.max(0, at2 - Date.now()) + 500));
  const restarted = Date.now();
  s = await start();
  const third = await waitForCheck(s, second, "the overdue rescheduled check");
  assert.ok(third >= restarted, "ran after the restart");

  // History shows both, and nothing is pending any more: a third restart runs nothing.
  const h = await curlJson(s.url + LIST_HISTORY, JSON.stringify({ host: "web", service }));
  const kinds = (JSON.parse(h.body) as { entries: { kind: string }[] }).entries.map((e) => e.kind);
  assert.equal(kinds.filter((k) => k === "CheckRescheduled").length, 2, h.body);
  await s.stop();
  s = await start();
  await new Promise((r) => setTimeout(r, 3_000));
  assert.equal(await lastCheck(s), third, "nothing ran again");
});
