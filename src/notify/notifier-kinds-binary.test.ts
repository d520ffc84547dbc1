/**
 * ACKNOWLEDGEMENT, CUSTOM and the collapse of stale notifications in the real `lookout` binary:
 * AcknowledgeProblem over the API tells a real webhook receiver, a command contact and a real SMTP
 * server; `notify: false` tells nobody; SendCustomNotification (API and command file) tells the
 * policy's contacts; a webhook down through two renotifications gets one notification, carrying how
 * many it replaces, when it is back.
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SMTPServer } from "smtp-server";
import { connectJson } from "../api/core-test-server.js";
import { startWebhookReceiver, type WebhookReceiver } from "../testing/peers/webhook-receiver.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";

interface Mail {
  readonly to: string[];
  readonly data: string;
}

/** A real SMTP server (smtp-server) on loopback, no auth, no TLS. */
async function smtpReceiver(): Promise<{ port: number; mails: Mail[]; close(): Promise<void> }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString(),
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function call(srv: ServerProcess, rpc: string, body: object): Promise<void> {
  const r = await connectJson(srv.url, `/svc.v1.CommandService/${rpc}`, body);
  assert.equal(r.status, 200, `${rpc}: ${JSON.stringify(r.body)}`);
}

async function result(srv: ServerProcess, exitStatus: number, output: string): Promise<void> {
  await call(srv, "ProcessCheckResults", { results: [{ host: "web", service: "http", exitStatus, output }] });
}

async function history(srv: ServerProcess): Promise<{ kind: string; author?: string; comment?: string }[]> {
  const r = await connectJson(srv.url, "/svc.v1.QueryService/ListHistory", {
    host: "web",
    service: "http",
    pageSize: 1000,
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { entries?: { kind: string; comment?: string }[] }).entries ?? [];
}

async function until(what: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("acknowledgement and custom notifications in the real binary", () => {
  const dir = mkdtempSync(join(tmpdir(), "lookout-notify-kinds-"));
  const configFile = join(dir, "lookout.cue");
  const commandOut = join(dir, "command.out");
  const script = join(dir, "notify.sh");
  const pipe = join(dir, "lookout.cmd");
  let hook: WebhookReceiver;
  let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
  let srv: ServerProcess;
  const lines = () =>
    readFileSync(commandOut, "utf8")
      .split("\n")
      .filter((l) => l !== "");
  before(async () => {
    hook = await startWebhookReceiver();
    smtp = await smtpReceiver();
    writeFileSync(script, `#!/bin/sh\necho "$*" >> ${commandOut}\n`, { mode: 0o755 });
    writeFileSync(commandOut, "");
    writeFileSync(
      configFile,
      `
commands: notify: {line: "${script} $NOTIFICATIONTYPE$ $SERVICEDESC$ [$NOTIFICATIONAUTHOR$] [$NOTIFICATIONCOMMENT$]"}
contacts: {
	hook: {type: "webhook", url: "${hook.url}"}
	pager: {type: "command", command: "notify"}
	ops: {type: "email", address: "ops@example.com"}
}
notifications: standard: levels: [{contacts: ["hook", "pager", "ops"], renotify_interval: "1h"}]
hosts: web: {
	address: "127.0.0.1"
	labels: {env: "prod", team: "infra"}
	check: {type: "passive", freshness_threshold: "24h"}
	services: http: {
		check: {type: "passive", freshness_threshold: "24h", max_attempts: 1, flap: enabled: false}
		notification: "standard"
		labels: {team: "web"}
	}
}
`,
    );
    srv = await startServer([
      "-config",
      configFile,
      "-data-dir",
      join(dir, "data"),
      "-command-file",
      pipe,
      "-smtp-server",
      "127.0.0.1",
      "-smtp-port",
      String(smtp.port),
      "-smtp-tls",
      "none",
    ]);
  });
  after(async () => {
    await srv?.stop();
    await hook?.close();
    await smtp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("AcknowledgeProblem tells the webhook, the command and the mailbox told of the problem", async () => {
    await result(srv, 0, "OK - fine");
    await result(srv, 2, "CRITICAL - down");
    await hook.waitFor(1);
    await until(() => smtp.mails.length === 1 && lines().length === 1);
    assert.equal(hook.got[0]?.body.kind, "PROBLEM");
    // The service's labels are its host's overlaid by its own, as ListStatus and selectors see them.
    assert.deepEqual(hook.got[0]?.body.labels, { env: "prod", team: "web" });

    // No notify field: true, as Icinga 2's.
    await call(srv, "AcknowledgeProblem", {
      target: { object: { host: "web", service: "http" } },
      sticky: true,
      author: "alice",
      comment: "on it",
    });
    await hook.waitFor(2);
    const ack = hook.got[1]?.body;
    assert.equal(ack?.kind, "ACKNOWLEDGEMENT");
    assert.equal(ack?.state, "CRITICAL");
    assert.equal(ack?.author, "alice");
    assert.equal(ack?.comment, "on it");
    assert.equal(ack?.replaces, 0);
    await until(() => smtp.mails.length === 2 && lines().length === 2);
    assert.equal(lines()[1], "ACKNOWLEDGEMENT http [alice] [on it]");
    const mail = smtp.mails[1] as Mail;
    assert.deepEqual(mail.to, ["ops@example.com"]);
    assert.match(mail.data, /Subject: ACKNOWLEDGEMENT web\/http is CRITICAL/);
    assert.match(mail.data, /By: alice/);
    assert.match(mail.data, /Comment: on it/);
    await until(
      async () =>
        (await history(srv)).filter((e) => e.comment?.startsWith("ACKNOWLEDGEMENT to")).length === 3,
    );
  });

  it("an acknowledgement with notify false tells nobody", async () => {
    await call(srv, "RemoveAcknowledgement", { target: { object: { host: "web", service: "http" } } });
    // Success means enqueued: wait until the projection shows it applied.
    await until(async () => (await history(srv)).some((e) => e.kind === "AcknowledgementRemoved"));
    await call(srv, "AcknowledgeProblem", {
      target: { object: { host: "web", service: "http" } },
      author: "bob",
      comment: "quietly",
      notify: false,
    });
    await until(async () =>
      (await history(srv)).some((e) => e.kind === "AcknowledgementSet" && e.comment === "quietly"),
    );
    await sleep(700);
    assert.equal(hook.got.length, 2);
    assert.equal(smtp.mails.length, 2);
    assert.equal(lines().length, 2);
  });

  it("SendCustomNotification passes the acknowledgement only when forced; the command file sends one too", async () => {
    await call(srv, "SendCustomNotification", {
      target: { object: { host: "web", service: "http" } },
      author: "carol",
      comment: "not forced",
    });
    await until(async () =>
      (await history(srv)).some(
        (e) => e.kind === "NotificationSuppressed" && /CUSTOM suppressed: acknowledged/.test(e.comment ?? ""),
      ),
    );
    assert.equal(hook.got.length, 2);
    await call(srv, "SendCustomNotification", {
      target: { object: { host: "web", service: "http" } },
      author: "carol",
      comment: "call me",
      force: true,
    });
    await hook.waitFor(3);
    assert.equal(hook.got[2]?.body.kind, "CUSTOM");
    assert.equal(hook.got[2]?.body.comment, "call me");
    await until(() => lines().length === 3 && smtp.mails.length === 3);
    assert.equal(lines()[2], "CUSTOM http [carol] [call me]");
    // In history too (the projection may follow the notifier, which reads the log itself).
    await until(async () =>
      (await history(srv)).some((e) => e.kind === "CustomNotification" && e.comment === "call me"),
    );

    const now = Math.floor(Date.now() / 1000);
    appendFileSync(pipe, `[${now}] SEND_CUSTOM_SVC_NOTIFICATION;web;http;2;dave;from the pipe\n`);
    await hook.waitFor(4);
    assert.equal(hook.got[3]?.body.kind, "CUSTOM");
    assert.equal(hook.got[3]?.body.author, "dave");
    for (const [id, n] of hook.counts) assert.equal(n, 1, id);
  });
});

describe("a webhook that comes back gets the current picture", () => {
  const dir = mkdtempSync(join(tmpdir(), "lookout-notify-collapse-"));
  const configFile = join(dir, "lookout.cue");
  let hook: WebhookReceiver;
  let srv: ServerProcess;
  before(async () => {
    hook = await startWebhookReceiver();
    writeFileSync(
      configFile,
      `
contacts: hook: {type: "webhook", url: "${hook.url}"}
notifications: standard: levels: [{contacts: ["hook"], renotify_interval: "2s"}]
hosts: web: {
	address: "127.0.0.1"
	check: {type: "passive", freshness_threshold: "24h"}
	services: http: {
		check: {type: "passive", freshness_threshold: "24h", max_attempts: 1, flap: enabled: false}
		notification: "standard"
	}
}
`,
    );
    srv = await startServer(["-config", configFile, "-data-dir", join(dir, "data")]);
  });
  after(async () => {
    await srv?.stop();
    await hook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the first page and two renotifications, undeliverable, arrive as one with replaces 2", async () => {
    hook.mode = "fail";
    await result(srv, 0, "OK");
    await result(srv, 2, "CRITICAL - down");
    // The notifier's own word for how far it got: the open problem's next renotification moves
    // on by renotify_interval (2 s) with each one decided. Not wall-clock sleeps: on a loaded
    // machine the writer (SCHED_IDLE) may lag by seconds.
    const nextAt = async (): Promise<number | undefined> => {
      const r = await connectJson(srv.url, "/svc.v1.QueryService/PreviewNotifications", {
        host: "web",
        service: "http",
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const t = (r.body as { previews: { nextNotificationAt?: string }[] }).previews[0]?.nextNotificationAt;
      return t === undefined ? undefined : Date.parse(t);
    };
    let first: number | undefined;
    await until(async () => {
      first = await nextAt();
      return first !== undefined;
    });
    // Down through two renotifications.
    await until(async () => ((await nextAt()) ?? 0) >= (first as number) + 2 * 2000, 60_000);
    hook.mode = "ok";
    await hook.waitFor(1, 60_000);
    const got = hook.got[0]?.body;
    assert.equal(got?.kind, "PROBLEM");
    const replaced = got?.replaces as number;
    assert.ok(replaced >= 2, `replaces ${replaced}`);
    assert.equal(got?.number, replaced + 1, "the newest carries the count of every one before it");
    // Each replaced send is recorded as superseded (the records follow the delivery shortly).
    const superseded = async () =>
      (await history(srv)).filter((e) => e.comment === "PROBLEM suppressed: superseded (hook)").length;
    await until(async () => (await superseded()) >= replaced);
    // No burst: none of the stale ones arrives after it (later renotifications may, in order).
    await sleep(500);
    const numbers = hook.got.map((g) => g.body.number as number);
    assert.ok(
      numbers.every((n, k) => k === 0 || n > (numbers[k - 1] as number)),
      JSON.stringify(hook.got.map((g) => [g.id, g.body.number, g.body.replaces])),
    );
  });
});
