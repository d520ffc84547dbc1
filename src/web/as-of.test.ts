import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
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
	labels: {env: "prod"}
	check: {type: "passive", freshness_threshold: "24h"}
	services: disk: check: {type: "passive", freshness_threshold: "24h"}
}
views: Production: {selector: "env=prod"}
`;

/**
 * The "as of" control in Debian's chromium against the real binary: a moment between a CRITICAL
 * and the OK after it shows the CRITICAL on the status and overview pages (and not the live OK),
 * keeps the moment in the address, reads nothing more while shown, goes back to live in one click,
 * and says which moment is the oldest when asked for one before the log.
 */
describe("as of a past moment, in chromium", () => {
  let dir: string;
  let shots: string;
  let srv: ServerProcess;
  let browser: Browser;
  let page: Page;
  let between: number;
  const cspViolations: string[] = [];

  before(async () => {
    assert.ok(existsSync(join(DEFAULT_WEB_DIR, "index.html")), "dist/web is missing: run npm run build");
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`);
    dir = await mkdtemp(join(tmpdir(), "lookout-web-asof-"));
    shots = await mkdtemp(join(tmpdir(), "lookout-screenshots-asof-"));
    console.log(`screenshots: ${shots}`);
    await writeFile(join(dir, "lookout.cue"), CONFIG);
    srv = await startServer(["-config", join(dir, "lookout.cue"), "-data-dir", join(dir, "data")]);
    const cmd = createClient(
      CommandService,
      createConnectTransport({ baseUrl: srv.url, httpVersion: "1.1" }),
    );
    await cmd.processCheckResult({
      host: "web1",
      service: "disk",
      exitStatus: 2,
      output: "DISK CRITICAL - 97%",
    });
    // A command's time is taken when it is accepted, before its answer: this moment lies after
    // the CRITICAL and before the OK.
    await sleep(20);
    between = Date.now();
    await sleep(20);
    await cmd.processCheckResult({ host: "web1", service: "disk", exitStatus: 0, output: "DISK OK - 40%" });
    browser = await launchChromium();
    browser.context.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    page = await browser.context.newPage();
    // A loaded machine (other builds and tests beside this one) can take far longer than a quiet one.
    page.setDefaultTimeout(60_000);
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** The `at` of a dashboard address (`#/page?…&at=…`), in ms. */
  const atOf = (url: string) =>
    Date.parse(new URLSearchParams(new URL(url).hash.split("?")[1] ?? "").get("at") ?? "");
  const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`) });
  const diskRow = (table: string) =>
    page.getByRole("table", { name: table }).getByRole("row").filter({ hasText: "disk" });

  test("the status page as of a moment shows that moment's state, not the live one", async () => {
    await page.goto(`${srv.url}/#/status`);
    await diskRow("Status").getByText("OK", { exact: true }).waitFor();
    await page.getByTestId("live").waitFor();

    const at = new Date(between).toISOString();
    await page.goto(`${srv.url}/#/status?at=${encodeURIComponent(at)}`);
    await page.getByTestId("as-of").waitFor();
    await diskRow("Status").getByText("CRITICAL", { exact: true }).waitFor();
    assert.equal(await diskRow("Status").getByText("DISK OK - 40%").count(), 0, "not the live output");
    await diskRow("Status").getByText("DISK CRITICAL - 97%").waitFor();
    // No actions on the past: they would act on now.
    assert.equal(await page.getByRole("button", { name: /^Acknowledge/ }).count(), 0);
    await shot("status-as-of");

    // Nothing is read again while a past moment is shown.
    const reads: string[] = [];
    const onRequest = (r: import("playwright-core").Request) => {
      if (/QueryService\/List(Status|History)$/.test(r.url())) reads.push(r.url());
    };
    page.on("request", onRequest);
    await page.waitForTimeout(3000);
    page.off("request", onRequest);
    assert.deepEqual(reads, [], "no polling as of a past moment");

    // One click back to live; Back returns to the moment (the moment is in the address).
    await page.getByRole("link", { name: "Back to live" }).click();
    await page.getByTestId("live").waitFor();
    await diskRow("Status").getByText("OK", { exact: true }).waitFor();
    assert.doesNotMatch(page.url(), /at=/);
    await page.goBack();
    await diskRow("Status").getByText("CRITICAL", { exact: true }).waitFor();
    assert.match(page.url(), /at=/);
  });

  test("the overview as of a moment lists the problem the live one no longer has", async () => {
    await page.goto(`${srv.url}/#/`);
    await page.getByTestId("live").waitFor();
    await page.getByRole("table", { name: "Unhandled problems" }).waitFor();
    assert.equal(await diskRow("Unhandled problems").count(), 0);
    // The date and time field (local time, to the second), then Show: that moment goes into the
    // address. The field drops the milliseconds, which may put it before the CRITICAL, so the
    // state is checked through the address with the exact moment.
    const local = new Date(between);
    const p = (n: number) => String(n).padStart(2, "0");
    const value = `${local.getFullYear()}-${p(local.getMonth() + 1)}-${p(local.getDate())}T${p(local.getHours())}:${p(local.getMinutes())}:${p(local.getSeconds())}`;
    await page.getByLabel("As of").fill(value);
    await page.getByRole("button", { name: "Show", exact: true }).click();
    await page.getByTestId("as-of").waitFor();
    assert.equal(
      atOf(page.url()),
      Math.floor(between / 1000) * 1000,
      "the moment typed is the one asked for",
    );

    await page.goto(`${srv.url}/#/?at=${encodeURIComponent(new Date(between).toISOString())}`);
    await diskRow("Unhandled problems").getByText("CRITICAL", { exact: true }).waitFor();
    await page.getByRole("link", { name: /Production/ }).waitFor();
    assert.match((await page.getByRole("link", { name: /Production/ }).getAttribute("href")) ?? "", /at=/);
    await shot("overview-as-of");
  });

  test("a moment before the log is refused with the oldest one it can answer", async () => {
    await page.goto(`${srv.url}/#/status?at=2001-01-01T00:00:00.000Z`);
    const alert = page.getByRole("alert").filter({ hasText: "cannot answer" });
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? "", /oldest moment it can answer is \d{4}-/);
    await shot("as-of-out-of-range");
    await alert.getByRole("link", { name: /^Show / }).click();
    await page.getByTestId("as-of").waitFor();
    await page
      .getByRole("table", { name: "Status" })
      .getByRole("row")
      .filter({ hasText: "web1" })
      .first()
      .waitFor();
    assert.equal(await page.getByRole("alert").filter({ hasText: "cannot answer" }).count(), 0);
  });

  test("the quick choice -1h asks for an hour ago", async () => {
    await page.goto(`${srv.url}/#/status`);
    await page.getByTestId("live").waitFor();
    const before = Date.now();
    await page.getByRole("button", { name: "−1h" }).click();
    await page.getByTestId("as-of").waitFor();
    const at = atOf(page.url());
    assert.ok(Math.abs(before - 3_600_000 - at) < 60_000, `${new Date(at).toISOString()} is an hour ago`);
    // An hour ago the server was not running: refused, with the oldest moment.
    await page.getByRole("alert").filter({ hasText: "cannot answer" }).waitFor();
  });

  test("the pages above ran under the dashboard's Content-Security-Policy", () => {
    assert.equal(cspViolations.length, 0, cspViolations.join("\n"));
  });
});
