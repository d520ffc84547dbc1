import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { SMTPServer } from "smtp-server";
import { EMPTY_CONFIG } from "../../model/config.js";
import { contractNotification, type PeerMode, senderContract } from "../../testing/sender-contract.js";
import { createEmailSender } from "./email-sender.js";

const PASSWORD = "smtp-pass-9c1e";

/** A real SMTP server (the smtp-server package) on loopback, with AUTH PLAIN/LOGIN. */
async function smtpReceiver() {
  let mode: PeerMode = "ok";
  const mails: { from: string; to: string[]; data: string }[] = [];
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === "lookout" && auth.password === PASSWORD) cb(null, { user: "lookout" });
      else cb(new Error("bad credentials"));
    },
    onRcptTo(_address, _session, cb) {
      if (mode === "retryable") {
        const e = Object.assign(new Error("mailbox busy, try later"), { responseCode: 451 });
        cb(e);
        return;
      }
      if (mode === "permanent") {
        const e = Object.assign(new Error("no such user"), { responseCode: 550 });
        cb(e);
        return;
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (mode === "hang") return;
        mails.push({
          from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString(),
        });
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    setMode: (m: PeerMode) => {
      mode = m;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

senderContract("email", async () => {
  const smtp = await smtpReceiver();
  return {
    sender: createEmailSender({
      server: "127.0.0.1",
      port: smtp.port,
      tls: "none",
      user: "lookout",
      password: PASSWORD,
      from: "lookout@example.com",
      timeoutMs: 3000,
    }),
    contact: { name: "ops", labels: {}, type: "email", address: "ops@example.com" },
    config: EMPTY_CONFIG,
    setMode: smtp.setMode,
    received: () => smtp.mails.length,
    secrets: [PASSWORD],
    logs: () => [],
    close: smtp.close,
  };
});

test("email goes to the contact's address with the notification id as Message-ID", async () => {
  const smtp = await smtpReceiver();
  try {
    const base = {
      server: "127.0.0.1",
      port: smtp.port,
      tls: "none" as const,
      user: "lookout",
      from: "lookout@example.com",
    };
    const contact = { name: "ops", labels: {}, type: "email" as const, address: "ops@example.com" };
    const good = createEmailSender({ ...base, password: PASSWORD });
    const o = await good.send(
      contractNotification("5.1.ops"),
      contact,
      EMPTY_CONFIG,
      AbortSignal.timeout(5000),
    );
    assert.deepEqual(o, { ok: true });
    const m = smtp.mails[0];
    assert.equal(m?.from, "lookout@example.com");
    assert.deepEqual(m?.to, ["ops@example.com"]);
    assert.match(m?.data ?? "", /^Message-ID: <5\.1\.ops@lookout>/m);
    assert.match(m?.data ?? "", /^X-Lookout-Notification-Id: 5\.1\.ops/im);
    assert.match(m?.data ?? "", /^Subject: PROBLEM web\/http is CRITICAL/m);
    // A wrong password is permanent, and never echoed.
    good.close?.();
    const wrong = createEmailSender({ ...base, password: "wrong-pass" });
    const bad = await wrong.send(
      contractNotification("5.2.ops"),
      contact,
      EMPTY_CONFIG,
      AbortSignal.timeout(5000),
    );
    assert.equal(!bad.ok && bad.retryable, false, JSON.stringify(bad));
    assert.ok(!JSON.stringify(bad).includes("wrong-pass"));
    wrong.close?.();
  } finally {
    await smtp.close();
  }
});
