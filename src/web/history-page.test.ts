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
import { QueryService } from "../api/gen/svc/v1/query_service_pb.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";
import { type Browser, CHROMIUM, launchChromium } from "./chromium.js";
import { DEFAULT_WEB_DIR } from "./static-site.js";

const CONFIG = `
hosts: web1: {
	address: "127.0.0.1"
	labels: {env: "prod"}
	check: {type: "passive", freshness_threshold: "24h"}
	services: flappy: check: {type: "passive", freshness_threshold: "24h", max_attempts: 1, flap: enabled: false}
}
hosts: db1: {
	address: "127.0.0.1"
	labels: {env: "test"}
	check: {type: "passive", freshness_threshold: "24h"}
	services: disk: check: {type: "passive", freshness_threshold: "24h", max_attempts: 1}
}
`;
/** State changes of web1's service: more than two pages of 100. */
const CHANGES = 250;

/**
 * The history page in Debian's chromium against the real binary: with a range, kinds and a
 * selector it pages through ListHistory 100 at a time, "Older" and "Newer", newest or oldest
 * first, and leaves out what the filters leave out.
 */
describe("history page paging in chromium", () => {
  let dir: string;
  let shots: string;
  let srv: ServerProcess;
  let browser: Browser;
  let page: Page;
  const cspViolations: string[] = [];

  before(async () => {
    assert.ok(existsSync(join(DEFAULT_WEB_DIR, "index.html")), "dist/web is missing: run npm run build");
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`);
    dir = await mkdtemp(join(tmpdir(), "lookout-web-history-page-"));
    shots = await mkdtemp(join(tmpdir(), "lookout-screenshots-history-page-"));
    console.log(`screenshots: ${shots}`);
    await writeFile(join(dir, "lookout.cue"), CONFIG);
    srv = await startServer(["-config", join(dir, "lookout.cue"), "-data-dir", join(dir, "data")]);
    const cmd = createClient(
      CommandService,
      createConnectTransport({ baseUrl: srv.url, httpVersion: "1.1" }),
    );
    await cmd.processCheckResult({ host: "db1", service: "disk", exitStatus: 2, output: "DISK CRITICAL" });
    for (let b = 0; b < CHANGES; b += 50) {
      const results = [];
      for (let i = b; i < b + 50; i++) {
        results.push({
          host: "web1",
          service: "flappy",
          exitStatus: i % 2 === 0 ? 2 : 0,
          output: `change ${i}`,
        });
      }
      await cmd.processCheckResults({ results });
    }
    // Answered means logged, not yet applied: wait until the last change is in the history.
    const q = createClient(QueryService, createConnectTransport({ baseUrl: srv.url, httpVersion: "1.1" }));
    for (let i = 0; ; i++) {
      const r = await q.listHistory({ host: "web1", service: "flappy", kinds: ["StateChange"], pageSize: 1 });
      if (r.entries[0]?.output === `change ${CHANGES - 1}`) break;
      assert.ok(i < 200, "the last change reaches the history");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
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

  const rows = () => page.locator(".history table tbody tr");
  const outputs = async () => (await rows().locator("td:last-child").allTextContents()).map((t) => t.trim());
  const pageIs = async (n: number) => page.getByText(`Page ${n}`, { exact: true }).first().waitFor();

  /**
   * Every page from the one shown on, following `forward` until it is disabled: each page's
   * outputs. A page read from the log may hold fewer than 100 entries (its scan ran out of time,
   * proto/svc/v1/query_service.proto), so only the whole is checked exactly.
   */
  const readAll = async (forward: string) => {
    const pages: string[][] = [];
    for (let n = 1; ; n++) {
      await pageIs(n);
      await page.getByText("Reading…").waitFor({ state: "detached" });
      pages.push(await outputs());
      const next = page.getByRole("button", { name: forward }).first();
      if (await next.isDisabled()) return pages;
      assert.ok(n < 50, "the pages end");
      await next.click();
    }
  };
  const changes = (from: number, to: number) => {
    const out: string[] = [];
    for (let i = from; from <= to ? i <= to : i >= to; i += from <= to ? 1 : -1) out.push(`change ${i}`);
    return out;
  };

  test("a week of one selector's state changes, 100 a page, Older and Newer", async () => {
    await page.goto(`${srv.url}/#/history`);
    const form = page.getByRole("form", { name: "History filters" });
    await form.getByLabel("Selector").fill("env=prod");
    await form.getByText(/^Kinds/).click();
    await form.getByLabel("StateChange").check();
    // Last 7 days puts the range in the address with the selector and kinds typed.
    await form.getByRole("button", { name: "Last 7 days" }).click();
    await pageIs(1);
    assert.match(decodeURIComponent(page.url()), /since=.*until=.*kinds=StateChange.*sel=env=prod/);
    const pages = await readAll("Older");
    // Newest first, only web1's state changes (the first result made the first: PENDING → CRITICAL).
    assert.deepEqual(pages.flat(), changes(CHANGES - 1, 0));
    assert.ok(pages.length >= 3, `${pages.length} pages`);
    assert.ok(
      pages.every((p) => p.length <= 100),
      "at most 100 a page",
    );
    await page.screenshot({ path: join(shots, "history-last-page.png"), fullPage: true });

    // Newer goes back one page, to what it held.
    await page.getByRole("button", { name: "Newer" }).first().click();
    await pageIs(pages.length - 1);
    await page.getByText("Reading…").waitFor({ state: "detached" });
    assert.deepEqual(await outputs(), pages[pages.length - 2]);
  });

  test("oldest first, Newer goes forward", async () => {
    const form = page.getByRole("form", { name: "History filters" });
    await form.getByLabel("Order").selectOption("oldest");
    await form.getByRole("button", { name: "Show" }).click();
    await pageIs(1);
    assert.match(page.url(), /order=oldest/);
    const pages = await readAll("Newer");
    assert.deepEqual(pages.flat(), changes(0, CHANGES - 1));
  });

  test("the selector leaves other objects out; the live feed is one link away", async () => {
    await page.goto(`${srv.url}/#/history?sel=${encodeURIComponent("env=test")}`);
    await page.getByText("DISK CRITICAL").waitFor();
    assert.equal(await page.getByText(/^change \d+$/).count(), 0);
    await page.getByRole("link", { name: "Live feed" }).click();
    await page.getByText("change 249").waitFor();
  });

  test("the pages above ran under the dashboard's Content-Security-Policy", () => {
    assert.equal(cspViolations.length, 0, cspViolations.join("\n"));
  });
});
