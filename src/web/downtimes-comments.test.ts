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
import { type ServerProcess, startServer } from "../testing/server-process.js";
import { type Browser, CHROMIUM, launchChromium } from "./chromium.js";
import { DEFAULT_WEB_DIR } from "./static-site.js";

const CONFIG = `
hosts: web1: {
	address: "127.0.0.1"
	labels: {env: "prod", role: "web"}
	check: {type: "passive", freshness_threshold: "24h"}
	services: {
		disk: check: {type: "passive", freshness_threshold: "24h"}
		load: check: {type: "passive", freshness_threshold: "24h", max_attempts: 1}
	}
}
hosts: db1: {
	address: "127.0.0.1"
	labels: {env: "test", role: "db"}
	check: {type: "passive", freshness_threshold: "24h"}
	services: backup: check: {type: "passive", freshness_threshold: "24h"}
}
`;

/**
 * The dashboard's downtimes and comments in Debian's chromium against the real binary: the
 * downtimes page lists what ListDowntimes has (not what this browser remembers) and deletes; the
 * schedule dialog makes a flexible downtime that waits for a problem and starts with it; the object
 * page adds and deletes comments and shows an acknowledgement's.
 */
describe("dashboard downtimes and comments in chromium", () => {
  let dir: string;
  let shots: string;
  let srv: ServerProcess;
  let browser: Browser;
  let page: Page;

  before(async () => {
    assert.ok(existsSync(join(DEFAULT_WEB_DIR, "index.html")), "dist/web is missing: run npm run build");
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`);
    dir = await mkdtemp(join(tmpdir(), "lookout-web-dt-"));
    shots = await mkdtemp(join(tmpdir(), "lookout-screenshots-dt-"));
    console.log(`screenshots: ${shots}`);
    await writeFile(join(dir, "lookout.cue"), CONFIG);
    srv = await startServer(["-config", join(dir, "lookout.cue"), "-data-dir", join(dir, "data")]);
    browser = await launchChromium();
    page = await browser.context.newPage();
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const shot = (p: Page, name: string) => p.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  const commands = () =>
    createClient(CommandService, createConnectTransport({ baseUrl: srv.url, httpVersion: "1.1" }));

  test("a downtime scheduled by selector is listed on the downtimes page, in any browser, and deleted there", async () => {
    await page.goto(`${srv.url}/#/status?sel=${encodeURIComponent("role=db")}`);
    await page.getByText("2 shown of 2 matching").waitFor();
    await page
      .getByRole("group", { name: /every object the selector matches/ })
      .getByRole("button", { name: "Schedule downtime" })
      .click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Comment").fill("restore test");
    await dialog.getByRole("button", { name: "Schedule downtime" }).click();
    await dialog.waitFor({ state: "hidden" });

    // A browser that scheduled nothing sees it too: the list comes from the server.
    const other = await browser.context.browser()?.newContext();
    assert.ok(other !== undefined);
    try {
      const fresh = await other.newPage();
      await fresh.goto(`${srv.url}/#/downtimes`);
      const table = fresh.getByRole("table", { name: "Downtimes" });
      const row = table.getByRole("row").filter({ hasText: "restore test" });
      await row.waitFor();
      await row.getByRole("link", { name: "db1/backup" }).waitFor();
      assert.match((await row.textContent()) ?? "", /active/);
      await shot(fresh, "downtimes-page");
      await fresh.goto(`${srv.url}/#/downtimes?state=future`);
      await fresh.getByText("No downtimes scheduled.").waitFor();
    } finally {
      await other.close();
    }

    await page.goto(`${srv.url}/#/downtimes`);
    const row = page
      .getByRole("table", { name: "Downtimes" })
      .getByRole("row")
      .filter({ hasText: "restore test" });
    await row.getByRole("button", { name: "Delete" }).click();
    await page.getByText("No downtimes scheduled.").waitFor();
  });

  test("a flexible downtime from the dialog waits for a problem, then starts", async () => {
    await page.goto(`${srv.url}/#/object/web1/load`);
    await page.getByRole("heading", { name: "load on web1" }).waitFor();
    await page.getByRole("button", { name: "Schedule downtime" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Comment").fill("maybe a reboot");
    await dialog.getByLabel(/Flexible/).check();
    await dialog.getByLabel("Duration (minutes)").fill("30");
    await shot(page, "flexible-dialog");
    await dialog.getByRole("button", { name: "Schedule downtime" }).click();
    await dialog.waitFor({ state: "hidden" });
    const row = page
      .getByRole("table", { name: "Downtimes" })
      .getByRole("row")
      .filter({ hasText: "maybe a reboot" });
    await row.getByText("waiting for a problem").waitFor();
    assert.match((await row.textContent()) ?? "", /flexible, 30m/);

    await commands().processCheckResult({
      host: "web1",
      service: "load",
      exitStatus: 2,
      output: "LOAD CRITICAL",
    });
    await row.getByText("active", { exact: true }).waitFor({ timeout: 10_000 });
    await page.getByText("In downtime now.").waitFor({ timeout: 10_000 });
    await shot(page, "flexible-active");
  });

  test("the object page adds and deletes comments, and shows an acknowledgement's", async () => {
    await page.goto(`${srv.url}/#/object/web1/disk`);
    await page.getByRole("heading", { name: "disk on web1" }).waitFor();
    await page.getByText("No comments.").waitFor();
    await page.getByLabel("New comment").fill("cable swapped in rack 4");
    await page.getByRole("button", { name: "Add comment" }).click();
    const comments = page.getByRole("list", { name: "Comments" });
    await comments.getByText(/cable swapped in rack 4/).waitFor();

    await commands().processCheckResult({
      host: "web1",
      service: "disk",
      exitStatus: 2,
      output: "DISK CRITICAL",
    });
    await page.getByRole("button", { name: "Acknowledge" }).waitFor({ timeout: 10_000 });
    await commands().acknowledgeProblem({
      target: { kind: { case: "object", value: { host: "web1", service: "disk" } } },
      author: "sam",
      comment: "replacing the disk",
    });
    const ack = comments.getByRole("listitem").filter({ hasText: "replacing the disk" });
    await ack.getByText("(acknowledgement)").waitFor({ timeout: 10_000 });
    assert.equal(
      await ack.getByRole("button", { name: "Delete" }).count(),
      0,
      "an acknowledgement's goes with it",
    );
    await shot(page, "object-comments");

    // Still there on a fresh load, then deleted.
    await page.reload();
    const mine = page
      .getByRole("list", { name: "Comments" })
      .getByRole("listitem")
      .filter({ hasText: "cable swapped" });
    await mine.getByRole("button", { name: "Delete" }).click();
    await mine.waitFor({ state: "detached", timeout: 10_000 });
    await page.getByText("replacing the disk").first().waitFor();
  });
});
