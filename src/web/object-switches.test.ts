import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { connectJson } from "../api/core-test-server.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";
import { type Browser, CHROMIUM, launchChromium } from "./chromium.js";
import { DEFAULT_WEB_DIR } from "./static-site.js";

const PASSIVE = `check: {type: "passive", freshness_threshold: "24h"}`;
const CONFIG = `
hosts: web1: {
	address: "127.0.0.1"
	labels: {role: "web"}
	${PASSIVE}
	services: {
		disk: ${PASSIVE}
		load: ${PASSIVE}
	}
}
hosts: db1: {
	address: "127.0.0.1"
	labels: {role: "db"}
	${PASSIVE}
}
`;

interface Status {
  host: string;
  service?: string;
  activeChecksDisabled?: boolean;
  passiveChecksDisabled?: boolean;
  notificationsDisabled?: boolean;
  flapDetectionDisabled?: boolean;
}

/**
 * The run-time switches on the dashboard, in Debian's chromium against the real binary: the object
 * page's four toggles turn each switch off and on (ListStatus says so), the status list marks an
 * object with a switch off, and the bulk action turns one switch off for every object a selector
 * matches.
 */
describe("dashboard switches in chromium", () => {
  let dir: string;
  let shots: string;
  let srv: ServerProcess;
  let browser: Browser;
  let page: Page;

  before(async () => {
    assert.ok(existsSync(join(DEFAULT_WEB_DIR, "index.html")), "dist/web is missing: run npm run build");
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`);
    dir = await mkdtemp(join(tmpdir(), "lookout-web-switches-"));
    shots = await mkdtemp(join(tmpdir(), "lookout-screenshots-switches-"));
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

  const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: false });
  const statusOf = async (host: string, service?: string): Promise<Status> => {
    const r = await connectJson(srv.url, "/svc.v1.QueryService/ListStatus", { host });
    const s = (r.body as { statuses: Status[] }).statuses.find((x) => x.service === service);
    assert.ok(s);
    return s;
  };
  const until = async (what: string, ok: () => Promise<boolean>) => {
    for (let i = 0; !(await ok()); i++) {
      assert.ok(i < 200, what);
      await page.waitForTimeout(50);
    }
  };

  const switches = [
    { label: "Active checks", field: "activeChecksDisabled" },
    { label: "Passive checks", field: "passiveChecksDisabled" },
    { label: "Notifications", field: "notificationsDisabled" },
    { label: "Flap detection", field: "flapDetectionDisabled" },
  ] as const;

  test("the object page's toggles turn each switch off, then on again", async () => {
    await page.goto(`${srv.url}/#/object/web1/disk`);
    await page.getByRole("heading", { name: "disk on web1" }).waitFor();
    const group = page.getByRole("group", { name: "Switches" });
    for (const w of switches) {
      const toggle = group.getByRole("switch", { name: w.label });
      assert.equal(await toggle.isChecked(), true, `${w.label} starts on`);
      await toggle.click();
      await until(
        `${w.label} off in ListStatus`,
        async () => (await statusOf("web1", "disk"))[w.field] === true,
      );
      await until(
        `${w.label} shown off`,
        async () => !(await toggle.isChecked()) && (await toggle.isEnabled()),
      );
    }
    await page.locator(".state-line .flag.off").waitFor();
    assert.match(
      (await page.locator(".state-line .flag.off").textContent()) ?? "",
      /active checks, passive checks/,
    );
    await shot("object-switches-off");
    for (const w of switches) {
      const toggle = group.getByRole("switch", { name: w.label });
      await toggle.click();
      await until(
        `${w.label} on in ListStatus`,
        async () => (await statusOf("web1", "disk"))[w.field] === undefined,
      );
      await until(
        `${w.label} shown on`,
        async () => (await toggle.isChecked()) && (await toggle.isEnabled()),
      );
    }
    await page.getByRole("cell", { name: "ObjectFlagsChanged" }).first().waitFor();
    assert.equal(await page.locator(".state-line .flag.off").count(), 0);
  });

  test("the status list marks an object with a switch off; the bulk action switches a selection", async () => {
    await page.goto(`${srv.url}/#/status?sel=${encodeURIComponent("role=web")}`);
    await page.getByText("3 shown of 3 matching").waitFor();
    page.once("dialog", (d) => {
      assert.match(d.message(), /Turn notifications off for every object matching role=web \(3\)/);
      void d.accept();
    });
    const bulk = page.getByRole("group", { name: /every object the selector matches/ });
    await bulk.getByRole("combobox", { name: "Switch" }).selectOption("notifications");
    await bulk.getByRole("button", { name: "Turn off" }).click();
    await bulk.getByRole("status").filter({ hasText: "Notifications turned off." }).waitFor();
    for (const [host, service] of [["web1"], ["web1", "disk"], ["web1", "load"]] as const) {
      await until(`${host} ${service ?? ""} notifications off`, async () => {
        return (await statusOf(host, service)).notificationsDisabled === true;
      });
    }
    assert.equal((await statusOf("db1")).notificationsDisabled, undefined, "db1 does not match");
    const marks = page.locator(".vrow .flag.off");
    await until("every row marked", async () => (await marks.count()) === 3);
    assert.match((await marks.first().textContent()) ?? "", /notifications/);
    await shot("status-switches-bulk");
  });
});
