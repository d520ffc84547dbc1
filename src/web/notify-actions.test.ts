import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { Page } from "playwright-core";
import { CommandService } from "../api/gen/svc/v1/command_service_pb.js";
import { startWebhookReceiver, type WebhookReceiver } from "../testing/peers/webhook-receiver.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";
import { type Browser, CHROMIUM, launchChromium } from "./chromium.js";
import { DEFAULT_WEB_DIR } from "./static-site.js";

const config = (hookUrl: string) => `
contacts: hook: {type: "webhook", url: "${hookUrl}"}
notifications: standard: levels: [{contacts: ["hook"], renotify_interval: "1h"}]
hosts: web1: {
	address: "127.0.0.1"
	check: {type: "passive", freshness_threshold: "24h"}
	services: disk: {
		check: {type: "passive", freshness_threshold: "24h", max_attempts: 1}
		notification: "standard"
	}
}
`;

/**
 * The dashboard's notification controls in Debian's chromium against the real binary and a real
 * webhook receiver: the acknowledge dialog's "Notify contacts" checkbox (on by default) and the
 * object page's "Send custom notification" (author, comment, force).
 */
describe("dashboard notification controls in chromium", () => {
  let dir: string;
  let srv: ServerProcess;
  let hook: WebhookReceiver;
  let browser: Browser;
  let page: Page;

  before(async () => {
    assert.ok(existsSync(join(DEFAULT_WEB_DIR, "index.html")), "dist/web is missing: run npm run build");
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`);
    dir = await mkdtemp(join(tmpdir(), "lookout-web-notify-"));
    hook = await startWebhookReceiver();
    await writeFile(join(dir, "lookout.cue"), config(hook.url));
    srv = await startServer(["-config", join(dir, "lookout.cue"), "-data-dir", join(dir, "data")]);
    browser = await launchChromium();
    page = await browser.context.newPage();
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
    await hook?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const client = () =>
    createClient(CommandService, createConnectTransport({ baseUrl: srv.url, httpVersion: "1.1" }));
  const kinds = () => hook.got.map((g) => g.body.kind);

  test("acknowledging with 'Notify contacts' unchecked tells nobody; checked (the default) tells the webhook", async () => {
    await client().processCheckResult({
      host: "web1",
      service: "disk",
      exitStatus: 2,
      output: "DISK CRITICAL",
    });
    await hook.waitFor(1);
    await page.goto(`${srv.url}/#/object/web1/disk`);
    await page.getByRole("button", { name: "Acknowledge", exact: true }).click();
    let dialog = page.getByRole("dialog");
    const notify = dialog.getByLabel(/Notify contacts/);
    assert.equal(await notify.isChecked(), true, "on by default");
    await notify.uncheck();
    await dialog.getByLabel("Comment").fill("quietly");
    await dialog.getByRole("button", { name: "Acknowledge problem" }).click();
    await page.getByRole("button", { name: "Remove acknowledgement" }).click();
    dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Remove acknowledgement" }).click();
    await page.getByRole("button", { name: "Acknowledge", exact: true }).click();
    dialog = page.getByRole("dialog");
    assert.equal(await dialog.getByLabel(/Notify contacts/).isChecked(), true, "on again when reopened");
    await dialog.getByLabel("Comment").fill("on it");
    await dialog.getByRole("button", { name: "Acknowledge problem" }).click();
    await hook.waitFor(2);
    assert.deepEqual(kinds(), ["PROBLEM", "ACKNOWLEDGEMENT"]);
    assert.equal(hook.got[1]?.body.comment, "on it", "the quiet acknowledgement told nobody");
  });

  test("'Send custom notification' with force passes the acknowledgement", async () => {
    await page.getByRole("button", { name: "Send custom notification" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Comment").fill("please look");
    await dialog.getByLabel(/Force/).check();
    await dialog.getByRole("button", { name: "Send", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Custom notification sent" }).waitFor();
    await hook.waitFor(3);
    assert.equal(hook.got[2]?.body.kind, "CUSTOM");
    assert.equal(hook.got[2]?.body.comment, "please look");
    assert.equal(hook.got[2]?.body.author, "dashboard");
  });
});
