import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { slotAtOrAfter } from "../engine/scheduler/slots.js";
import { curlJson } from "../testing/clients.js";
import { type Peer, startTcpListener } from "../testing/peers/tcp.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";
import { type Browser, CHROMIUM, launchChromium } from "./chromium.js";
import { DEFAULT_WEB_DIR } from "./static-site.js";

const DAY = 86_400_000;

/** Two service names whose daily grid slots are hours away: they run only when asked to. */
function quietServices(): [string, string] {
  const names: string[] = [];
  for (let i = 0; names.length < 2; i++) {
    const name = `probe${i}`;
    if (slotAtOrAfter(`web1!${name}`, DAY, Date.now()) - Date.now() > 3_600_000) names.push(name);
  }
  return names as [string, string];
}

/**
 * The "Check now" button of the object page and the status list's bulk action, in Debian's
 * chromium against the real binary: a click runs the check, and its last check moves.
 */
describe("check now in chromium", () => {
  const [one, two] = quietServices();
  let dir: string;
  let peer: Peer;
  let srv: ServerProcess;
  let browser: Browser;
  let page: Page;

  before(async () => {
    assert.ok(existsSync(join(DEFAULT_WEB_DIR, "index.html")), "dist/web is missing: run npm run build");
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`);
    dir = await mkdtemp(join(tmpdir(), "lookout-checknow-"));
    peer = await startTcpListener();
    const probe = `{type: "tcp", address: "127.0.0.1:${peer.port}", check_interval: "24h"}`;
    await writeFile(
      join(dir, "lookout.cue"),
      `hosts: web1: {
	address: "127.0.0.1"
	labels: role: "web"
	check: {type: "passive", freshness_threshold: "48h"}
	services: {
		${one}: check: ${probe}
		${two}: check: ${probe}
		push: check: {type: "passive", freshness_threshold: "48h"}
	}
}
`,
    );
    srv = await startServer(["-config", join(dir, "lookout.cue"), "-data-dir", join(dir, "data")]);
    browser = await launchChromium();
    page = await browser.context.newPage();
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
    await peer?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** The service's last check (ms), undefined while PENDING. */
  const lastCheck = async (service: string): Promise<number | undefined> => {
    const r = await curlJson(
      `${srv.url}/svc.v1.QueryService/ListStatus`,
      JSON.stringify({ host: "web1", service }),
    );
    const s = (JSON.parse(r.body) as { statuses?: { lastCheck?: string }[] }).statuses?.[0];
    return s?.lastCheck === undefined ? undefined : Date.parse(s.lastCheck);
  };
  const waitForCheck = async (service: string, after: number | undefined): Promise<number> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const t = await lastCheck(service);
      if (t !== undefined && (after === undefined || t > after)) return t;
      if (Date.now() > deadline) assert.fail(`${service}: last check did not move:\n${srv.stderr()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  test("the object page's Check now runs the check: its last check moves", async () => {
    const first = await waitForCheck(one, undefined);
    await page.goto(`${srv.url}/#/object/web1/${one}`);
    const line = page.locator(".state-line");
    // Long enough ago that a new check shows as a smaller age.
    await line.getByText(/checked ([5-9]|\d\d)s ago/).waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Check now" }).click();
    await page.getByRole("status").getByText("Check requested.").waitFor();
    await line.getByText(/checked [0-3]s ago/).waitFor({ timeout: 15_000 });
    assert.ok((await waitForCheck(one, first)) > first);
  });

  test("a passive object has no Check now button", async () => {
    await page.goto(`${srv.url}/#/object/web1/push`);
    await page.getByRole("heading", { name: "push on web1" }).waitFor();
    await page.getByRole("button", { name: "Schedule downtime" }).waitFor();
    assert.equal(await page.getByRole("button", { name: "Check now" }).count(), 0);
  });

  test("the status list's bulk Check now runs every matching active check", async () => {
    const before = [await waitForCheck(one, undefined), await waitForCheck(two, undefined)];
    await page.goto(`${srv.url}/#/status?sel=${encodeURIComponent("role=web")}`);
    const bulk = page.getByRole("group", { name: "Actions on every object the selector matches" });
    await bulk.getByRole("button", { name: "Check now" }).click();
    await bulk.getByText("Check requested.").waitFor();
    assert.ok((await waitForCheck(one, before[0])) > (before[0] as number));
    assert.ok((await waitForCheck(two, before[1])) > (before[1] as number));
  });
});
