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
		load: check: {type: "passive", freshness_threshold: "24h"}
	}
}
hosts: db1: {
	address: "127.0.0.1"
	labels: {env: "test", role: "db"}
	check: {type: "passive", freshness_threshold: "24h"}
	services: backup: check: {type: "passive", freshness_threshold: "24h"}
}
views: Production: {selector: "env=prod", description: "Everything in prod"}
views: Databases: {selector: "role=db", description: "The database hosts"}
`;

/**
 * The dashboard in Debian's chromium against the real binary: it must show a passive result
 * without a reload, acknowledge from the table, schedule a downtime by selector, show the object page
 * and the history, say that the admin pages are not available without AdminService, and show
 * (then clear) the unreachable banner when the server stops and comes back.
 */
describe("dashboard in chromium", () => {
  let dir: string;
  let shots: string;
  let srv: ServerProcess;
  let browser: Browser;
  let page: Page;
  const cspViolations: string[] = [];
  const args = (): string[] => ["-config", join(dir, "lookout.cue"), "-data-dir", join(dir, "data")];

  before(async () => {
    assert.ok(existsSync(join(DEFAULT_WEB_DIR, "index.html")), "dist/web is missing: run npm run build");
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`);
    dir = await mkdtemp(join(tmpdir(), "lookout-web-"));
    shots = await mkdtemp(join(tmpdir(), "lookout-screenshots-"));
    console.log(`screenshots: ${shots}`);
    await writeFile(join(dir, "lookout.cue"), CONFIG);
    srv = await startServer(args());
    browser = await launchChromium();
    // Chromium reports what the Content-Security-Policy blocked as console errors.
    browser.context.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    page = await browser.context.newPage();
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: false });
  const submit = (service: string | undefined, exitStatus: number, output: string) =>
    createClient(
      CommandService,
      createConnectTransport({ baseUrl: srv.url, httpVersion: "1.1" }),
    ).processCheckResult({
      host: "web1",
      service,
      exitStatus,
      output,
    });

  test("a passive CRITICAL result appears among unhandled problems without a reload", async () => {
    await page.goto(srv.url);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await page.getByText("Production").first().waitFor();
    await submit("disk", 2, "DISK CRITICAL - / at 97%|'/'=97%;80;90;0;100\nfilesystem / is nearly full");
    const row = page
      .getByRole("table", { name: "Unhandled problems" })
      .getByRole("row")
      .filter({ hasText: "disk" });
    // The page polls every second or so; 10 s leaves room for a loaded machine (speed is the
    // benchmarks' business, not a test's).
    await row.getByText("CRITICAL", { exact: true }).waitFor({ timeout: 10_000 });
    await shot("overview");
  });

  test("acknowledged from the status table, the problem moves to handled", async () => {
    await page.goto(`${srv.url}/#/status`);
    await page.getByRole("button", { name: "Acknowledge web1 disk" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Comment").fill("replacing the disk");
    await shot("acknowledge-dialog");
    await dialog.getByRole("button", { name: "Acknowledge problem" }).click();
    await page.getByRole("button", { name: "Remove acknowledgement of web1 disk" }).waitFor();
    await shot("status");
    await page.goto(`${srv.url}/#/`);
    await page
      .getByRole("table", { name: "Handled problems" })
      .getByRole("link", { name: "disk", exact: true })
      .waitFor();
    assert.equal(
      await page
        .getByRole("table", { name: "Unhandled problems" })
        .getByRole("link", { name: "disk", exact: true })
        .count(),
      0,
    );
  });

  test("a downtime scheduled by selector puts every match in downtime", async () => {
    await page.goto(`${srv.url}/#/status?sel=${encodeURIComponent("role=web")}`);
    await page.getByText("3 shown of 3 matching").waitFor();
    await page
      .getByRole("group", { name: /every object the selector matches/ })
      .getByRole("button", { name: "Schedule downtime" })
      .click();
    const dialog = page.getByRole("dialog");
    assert.match((await dialog.textContent()) ?? "", /every object matching role=web/);
    await dialog.getByLabel("Comment").fill("kernel upgrade");
    await dialog.getByRole("button", { name: "Schedule downtime" }).click();
    // Not waitForFunction: its string predicate is eval'd in the page, which the CSP forbids.
    const flags = page.locator(".vrow .flag.dt");
    for (let i = 0; (await flags.count()) !== 3; i++) {
      assert.ok(i < 200, "every match shows the downtime flag");
      await page.waitForTimeout(50);
    }
    await shot("status-selector-downtime");
  });

  test("the object page shows output, long output, perfdata, acknowledgement and history", async () => {
    await page.goto(`${srv.url}/#/object/web1/disk`);
    await page.getByRole("heading", { name: "disk on web1" }).waitFor();
    await page.getByText("filesystem / is nearly full").waitFor();
    await page.getByRole("cell", { name: "97%", exact: true }).waitFor();
    await page.getByText("replacing the disk").first().waitFor();
    await page.getByRole("cell", { name: "AcknowledgementSet" }).waitFor();
    await page.getByText("In downtime now.").waitFor();
    await shot("object");
  });

  test("the history feed lists the events", async () => {
    await page.goto(`${srv.url}/#/history`);
    await page.getByRole("cell", { name: "StateChange" }).first().waitFor();
    await page.getByRole("cell", { name: "DowntimeStarted" }).first().waitFor();
    await shot("history");
  });

  test("without AdminService the admin pages say they are not available and are not offered", async () => {
    await page.goto(`${srv.url}/#/config`);
    await page.getByTestId("admin-unavailable").waitFor();
    assert.equal(
      await page.getByRole("navigation").getByRole("link", { name: "Config", exact: true }).count(),
      0,
    );
    await shot("config-unavailable");
  });

  test("readable at phone width and in dark mode", async () => {
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto(`${srv.url}/#/`);
    await page
      .getByRole("table", { name: "Handled problems" })
      .getByRole("link", { name: "disk", exact: true })
      .waitFor();
    await shot("overview-dark");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${srv.url}/#/status`);
    await page
      .getByRole("table", { name: "Status" })
      .getByRole("link", { name: "disk", exact: true })
      .waitFor();
    await shot("status-phone-dark");
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test("an action is reachable by keyboard alone: Tab to the row's button, Enter, Enter", async () => {
    await page.goto(`${srv.url}/#/status`);
    const target = "Remove acknowledgement of web1 disk";
    await page.getByRole("button", { name: target }).waitFor();
    let focused = "";
    for (let i = 0; i < 80 && focused !== target; i++) {
      await page.keyboard.press("Tab");
      focused = (await page.evaluate("document.activeElement?.getAttribute('aria-label') ?? ''")) as string;
    }
    assert.equal(focused, target, "Tab reaches the row's button");
    await page.keyboard.press("Enter");
    await page.getByRole("dialog").getByRole("heading", { name: "Remove acknowledgement" }).waitFor();
    await shot("keyboard-dialog");
    // Focus stays inside the dialog: Tab moves from Cancel to the confirming button.
    let label = "";
    for (let i = 0; i < 5 && label !== "Remove acknowledgement"; i++) {
      await page.keyboard.press("Tab");
      label = (await page.evaluate("document.activeElement?.textContent ?? ''")) as string;
    }
    assert.equal(label, "Remove acknowledgement");
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Acknowledge web1 disk" }).waitFor();
  });

  test("a banner says the server is unreachable, and goes once it is back", async () => {
    await page.goto(`${srv.url}/#/`);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    const port = srv.port;
    await srv.stop();
    await page.getByRole("alert").filter({ hasText: "unreachable" }).waitFor({ timeout: 10_000 });
    await shot("unreachable");
    srv = await startServer([...args(), "-listen", `127.0.0.1:${port}`]);
    await page
      .getByRole("alert")
      .filter({ hasText: "unreachable" })
      .waitFor({ state: "detached", timeout: 10_000 });
    await page
      .getByRole("table", { name: "Handled problems" })
      .getByRole("link", { name: "disk", exact: true })
      .waitFor();
  });

  test("everything above ran under the dashboard's Content-Security-Policy, which forbids framing", async () => {
    const res = await fetch(`${srv.url}/`);
    assert.match(
      res.headers.get("content-security-policy") ?? "",
      /script-src 'self';.*frame-ancestors 'none'/,
    );
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.equal(cspViolations.length, 0, cspViolations.join("\n"));
    // A page of another origin that frames the dashboard gets nothing.
    const framing = await browser.context.newPage();
    try {
      // setContent waits for the load event, which waits for the frame (loaded or blocked).
      await framing.setContent(`<iframe src="${srv.url}/"></iframe>`);
      const frame = framing.frames().find((f) => f.url().startsWith(srv.url));
      const framed = frame === undefined ? "" : await frame.content().catch(() => "");
      assert.doesNotMatch(framed, /Overview|Loading Lookout/);
      for (let i = 0; !cspViolations.some((v) => v.includes("frame-ancestors")); i++) {
        assert.ok(i < 100, "Chromium reports the frame-ancestors refusal");
        await framing.waitForTimeout(50);
      }
    } finally {
      await framing.close();
    }
  });
});
