/**
 * The notifier in the real `lookout` binary: passive results over the API make HARD state changes,
 * a loopback webhook receiver and a command contact are told, ListHistory shows the decisions, and
 * a restart neither loses nor repeats a notification.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connectJson } from "../api/core-test-server.js";
import { startWebhookReceiver, type WebhookReceiver } from "../testing/peers/webhook-receiver.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";

const dir = mkdtempSync(join(tmpdir(), "lookout-notify-"));
const dataDir = join(dir, "data");
const configFile = join(dir, "lookout.cue");
const commandOut = join(dir, "command.out");
const script = join(dir, "notify.sh");

function document(hookUrl: string): string {
  return `
commands: notify: {line: "${script} $NOTIFICATIONTYPE$ $HOSTNAME$ $SERVICEDESC$ $SERVICESTATE$ $CONTACTEMAIL$"}
contacts: {
	hook: {type: "webhook", url: "${hookUrl}"}
	ops: {type: "command", command: "notify", address: "ops@example.com"}
}
notifications: standard: levels: [{contacts: ["hook", "ops"]}]
hosts: web: {
	address: "127.0.0.1"
	check: {type: "passive", freshness_threshold: "24h"}
	services: http: {
		check: {type: "passive", freshness_threshold: "24h", max_attempts: 1, flap: enabled: false}
		notification: "standard"
		labels: {team: "web"}
	}
}
`;
}

async function result(srv: ServerProcess, exitStatus: number, output: string): Promise<void> {
  const r = await connectJson(srv.url, "/svc.v1.CommandService/ProcessCheckResults", {
    results: [{ host: "web", service: "http", exitStatus, output }],
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

async function history(srv: ServerProcess): Promise<{ kind: string; comment?: string }[]> {
  const r = await connectJson(srv.url, "/svc.v1.QueryService/ListHistory", {
    host: "web",
    service: "http",
    pageSize: 1000,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { entries?: { kind: string; comment?: string }[] }).entries ?? [];
}

async function until(what: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("the notifier in the real binary", () => {
  let hook: WebhookReceiver;
  let srv: ServerProcess;
  before(async () => {
    hook = await startWebhookReceiver();
    writeFileSync(script, `#!/bin/sh\necho "$*" >> ${commandOut}\n`, { mode: 0o755 });
    writeFileSync(commandOut, "");
    writeFileSync(configFile, document(hook.url));
    srv = await startServer(["-config", configFile, "-data-dir", dataDir]);
  });
  after(async () => {
    await srv?.stop();
    await hook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("tells the webhook and the command of a HARD problem and its recovery, once each", async () => {
    await result(srv, 0, "OK - fine");
    await result(srv, 2, "CRITICAL - down");
    await hook.waitFor(1);
    await until(() => readFileSync(commandOut, "utf8").includes("PROBLEM"));
    const p = hook.got[0];
    assert.equal(p?.body.kind, "PROBLEM");
    assert.equal(p?.body.state, "CRITICAL");
    assert.equal(p?.body.output, "CRITICAL - down");
    assert.deepEqual(p?.body.labels, { team: "web" });
    assert.equal(p?.body.id, p?.id, "the body's id is the Idempotency-Key");
    assert.equal(readFileSync(commandOut, "utf8"), "PROBLEM web http CRITICAL ops@example.com\n");
    await result(srv, 0, "OK - back");
    await hook.waitFor(2);
    assert.equal(hook.got[1]?.body.kind, "RECOVERY");
    await until(() => readFileSync(commandOut, "utf8").includes("RECOVERY"));
    await until(async () => (await history(srv)).filter((e) => e.kind === "NotificationSent").length === 4);
    const sent = (await history(srv))
      .filter((e) => e.kind === "NotificationSent")
      .map((e) => e.comment)
      .sort();
    assert.deepEqual(sent, ["PROBLEM to hook", "PROBLEM to ops", "RECOVERY to hook", "RECOVERY to ops"]);
  });

  it("records a failing contact's attempts and delivers once it is back, with the same id", async () => {
    hook.mode = "fail";
    await result(srv, 1, "WARNING - slow");
    await until(async () => (await history(srv)).some((e) => e.kind === "NotificationFailed"));
    hook.mode = "ok";
    await hook.waitFor(3);
    assert.equal(hook.got[2]?.body.kind, "PROBLEM");
    for (const [id, n] of hook.counts) assert.equal(n, 1, id);
  });

  it("exposes notification metrics by contact type, kind and result, without names or URLs", async () => {
    const text = await (await fetch(`${srv.url}/metrics`)).text();
    assert.match(text, /lookout_notifications_total\{type="webhook",kind="PROBLEM",result="sent"\} 2/);
    assert.match(text, /lookout_notifications_total\{type="webhook",kind="PROBLEM",result="retry"\} [1-9]/);
    assert.match(text, /lookout_notifications_total\{type="command",kind="RECOVERY",result="sent"\} 1/);
    assert.match(text, /lookout_notification_send_seconds_count\{type="webhook"\} [1-9]/);
    assert.match(text, /lookout_notification_delivery_seconds_bucket\{le="0.1",type="webhook"\} [0-9]/);
    assert.match(text, /^lookout_notifications_pending 0$/m);
    assert.ok(!text.includes(String(hook.port)), "no URL in any label");
    assert.ok(!text.includes(`="hook"`), "no contact name in any label");
  });

  it("PreviewNotifications answers who would be told, from the notifier's own state", async () => {
    const ask = async (req: object) => {
      const r = await connectJson(srv.url, "/svc.v1.QueryService/PreviewNotifications", req);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (r.body as { previews: Record<string, unknown>[] }).previews;
    };
    const [open] = await ask({ host: "web", service: "http" });
    assert.equal(open?.kind, "PROBLEM");
    assert.deepEqual(open?.contacts, ["hook", "ops"]);
    assert.deepEqual(open?.told, ["hook", "ops"]);
    assert.equal(open?.level, 1);
    assert.equal(typeof open?.nextNotificationAt, "string");
    const [recovery] = await ask({ host: "web", service: "http", state: "STATE_OK" });
    assert.equal(recovery?.kind, "RECOVERY");
    const host = await ask({ host: "web" });
    assert.equal(host.length, 2);
    assert.equal(host[0]?.suppressed, "no_policy");
  });

  it("after a restart neither repeats nor loses a notification", async () => {
    const old = srv;
    assert.equal(await old.stop(), 0, old.stderr().slice(-3000));
    srv = await startServer(["-config", configFile, "-data-dir", dataDir]);
    await result(srv, 0, "OK - fine again");
    await hook.waitFor(4);
    assert.equal(hook.got[3]?.body.kind, "RECOVERY");
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(hook.got.length, 4, JSON.stringify(hook.got.map((g) => [g.id, g.body.kind])));
    for (const [id, n] of hook.counts) assert.equal(n, 1, id);
  });
});

describe("reloading the notifier", () => {
  let hook: WebhookReceiver;
  let srv: ServerProcess;
  const rdir = mkdtempSync(join(tmpdir(), "lookout-notify-reload-"));
  const cfg = join(rdir, "lookout.cue");
  before(async () => {
    hook = await startWebhookReceiver();
    writeFileSync(
      cfg,
      document(hook.url)
        .replace(/commands: .*\n/, "")
        .replace(/\tops: .*\n/, "")
        .replace(`["hook", "ops"]`, `["hook"]`),
    );
    srv = await startServer(["-config", cfg, "-data-dir", join(rdir, "data")]);
  });
  after(async () => {
    await srv?.stop();
    await hook?.close();
    rmSync(rdir, { recursive: true, force: true });
  });

  it("drops a removed contact's pending sends with a recorded reason; the notifier is among the reload's consumers", async () => {
    hook.mode = "fail";
    await result(srv, 0, "OK");
    await result(srv, 2, "CRITICAL");
    await until(async () => (await history(srv)).some((e) => e.kind === "NotificationFailed"));
    writeFileSync(
      cfg,
      document(hook.url)
        .replace(/commands: .*\n/, "")
        .replace(/\thook: .*\n/, "")
        .replace(`["hook", "ops"]`, `["ops"]`)
        .replace(`command: "notify", `, ""),
    );
    // The command contact needs a command: make ops an email contact instead.
    writeFileSync(
      cfg,
      readFileSync(cfg, "utf8").replace(`ops: {type: "command", address:`, `ops: {type: "email", address:`),
    );
    srv.child.kill("SIGHUP");
    await until(() => /"msg":"config reloaded".*"consumers":\[[^\]]*"notifier"/.test(srv.stderr()));
    await until(async () =>
      (await history(srv)).some(
        (e) =>
          e.kind === "NotificationSuppressed" && e.comment === "PROBLEM suppressed: contact_removed (hook)",
      ),
    );
    hook.mode = "ok";
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(hook.got.length, 0, "the dropped send never went out");
  });
});
