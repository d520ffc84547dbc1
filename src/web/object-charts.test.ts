import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { Locator, Page } from "playwright-core";
import { CommandService } from "../api/gen/svc/v1/command_service_pb.js";
import { QueryService } from "../api/gen/svc/v1/query_service_pb.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";
import { type Browser, CHROMIUM, launchChromium } from "./chromium.js";
import { DEFAULT_WEB_DIR } from "./static-site.js";

const CONFIG = `
hosts: web1: {
	address: "127.0.0.1"
	check: {type: "passive", freshness_threshold: "24h"}
	services: {
		load: check: {type: "passive", freshness_threshold: "24h", max_attempts: 1}
		rtt: check: {type: "passive", freshness_threshold: "24h"}
	}
}
`;

/** How many pixels of the canvas are within a small distance of a CSS colour (`#rrggbb`). */
async function pixelsOf(canvas: Locator, cssVar: string): Promise<number> {
  return canvas.evaluate((c, name) => {
    // Runs in the page; the root tsconfig has no DOM types, so the few used are spelled here.
    const g = globalThis as unknown as {
      getComputedStyle(e: unknown): { getPropertyValue(n: string): string };
      document: { documentElement: unknown };
    };
    const el = c as unknown as {
      width: number;
      height: number;
      getContext(k: "2d"): {
        getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
      };
    };
    const hex = g.getComputedStyle(g.document.documentElement).getPropertyValue(name).trim();
    const want = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
    const data = el.getContext("2d").getImageData(0, 0, el.width, el.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      const d =
        Math.abs((data[i] as number) - (want[0] as number)) +
        Math.abs((data[i + 1] as number) - (want[1] as number)) +
        Math.abs((data[i + 2] as number) - (want[2] as number));
      if (d < 24 && (data[i + 3] as number) > 200) n++;
    }
    return n;
  }, cssVar);
}

/**
 * The object page's charts in Debian's chromium against the real binary: the state timeline
 * (states, an acknowledgement, a downtime) from ListHistory, and a uPlot chart per perfdata label
 * from ListPerfdata, with its series and its warning and critical lines drawn on the canvas; a
 * chart of 10,000 results.
 */
describe("object page charts in chromium", () => {
  let dir: string;
  let shots: string;
  let srv: ServerProcess;
  let browser: Browser;
  let page: Page;
  const cspViolations: string[] = [];
  const cmd = () =>
    createClient(CommandService, createConnectTransport({ baseUrl: srv.url, httpVersion: "1.1" }));

  before(async () => {
    assert.ok(existsSync(join(DEFAULT_WEB_DIR, "index.html")), "dist/web is missing: run npm run build");
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`);
    dir = await mkdtemp(join(tmpdir(), "lookout-web-charts-"));
    shots = await mkdtemp(join(tmpdir(), "lookout-screenshots-charts-"));
    console.log(`screenshots: ${shots}`);
    await writeFile(join(dir, "lookout.cue"), CONFIG);
    srv = await startServer(["-config", join(dir, "lookout.cue"), "-data-dir", join(dir, "data")]);
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
  const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

  test("the timeline shows the states, the acknowledgement and the downtime; the chart its series and thresholds", async () => {
    // load climbs from 10 to 95 %: OK, then WARNING above 80, CRITICAL above 90.
    for (let i = 0; i < 40; i++) {
      const v = Math.round(10 + (85 * i) / 39);
      const exitStatus = v > 90 ? 2 : v > 80 ? 1 : 0;
      await cmd().processCheckResult({
        host: "web1",
        service: "load",
        exitStatus,
        output: `LOAD ${v}%|load=${v}%;80;90;0;100`,
      });
    }
    await cmd().acknowledgeProblem({
      target: { kind: { case: "object", value: { host: "web1", service: "load" } } },
      author: "sam",
      comment: "looking",
    });
    await cmd().scheduleDowntime({
      target: { kind: { case: "object", value: { host: "web1", service: "load" } } },
      start: timestampFromMs(Date.now() - 1000),
      end: timestampFromMs(Date.now() + 3_600_000),
      author: "sam",
      comment: "maintenance",
    });

    // Answered means logged, not yet applied: once the object page shows the downtime (it reads
    // every 2 s), every command before it is in the log, and a fresh load reads them all.
    await page.goto(`${srv.url}/#/object/web1/load`);
    await page.getByText("In downtime now.").waitFor({ timeout: 20_000 });
    await page.reload();
    await page.getByRole("heading", { name: "Over time" }).waitFor();
    const timeline = page.getByRole("img", { name: /^State timeline/ });
    // The timeline is re-read every 30 s; the downtime and acknowledgement are in the first read.
    await page.getByRole("img", { name: /Acknowledged 1 times, 1 downtimes/ }).waitFor();
    const described = (await timeline.getAttribute("aria-label")) ?? "";
    assert.match(described, /OK hard from .* to .*; WARNING hard .*; CRITICAL hard from/);
    assert.ok(Number(await timeline.getAttribute("data-segments")) >= 3);
    await shot("object-timeline");
    assert.ok((await pixelsOf(timeline, "--critical")) > 0, "the CRITICAL part is drawn");
    assert.ok((await pixelsOf(timeline, "--ok")) > 0, "the OK part is drawn");

    const figure = page.getByRole("figure", { name: "Chart of load" });
    const canvas = figure.locator("canvas");
    await canvas.waitFor();
    assert.equal(await figure.getAttribute("data-points"), "40");
    assert.match(
      (await figure.locator("figcaption").textContent()) ?? "",
      /load 95% warn 80 crit 90 min 0 max 100/,
    );
    // The series in the accent colour, the warning and critical lines in theirs.
    for (let i = 0; (await figure.locator(".chart").getAttribute("data-draw-ms")) === null; i++) {
      assert.ok(i < 200, "the chart is drawn");
      await page.waitForTimeout(50);
    }
    assert.ok((await pixelsOf(canvas, "--accent")) > 50, "the series is drawn");
    assert.ok((await pixelsOf(canvas, "--warning")) > 50, "the warning line is drawn");
    assert.ok((await pixelsOf(canvas, "--critical")) > 50, "the critical line is drawn");
    await shot("object-charts");
  });

  test("a chart of 10,000 results", async () => {
    const base = Date.now() - 10_000 * 60_000;
    for (let b = 0; b < 10; b++) {
      const results = [];
      for (let i = b * 1000; i < (b + 1) * 1000; i++) {
        const v = (50 + 40 * Math.sin(i / 300)).toFixed(2);
        results.push({
          host: "web1",
          service: "rtt",
          exitStatus: 0,
          output: `PING OK|rtt=${v}ms;80;95;0`,
          checkedAt: timestampFromMs(base + i * 60_000),
        });
      }
      await cmd().processCheckResults({ results });
    }
    // Answered means logged, not yet applied: wait until the last batch is readable.
    const q = createClient(QueryService, createConnectTransport({ baseUrl: srv.url, httpVersion: "1.1" }));
    for (let i = 0; ; i++) {
      const r = await q.listPerfdata({ host: "web1", service: "rtt", maxPoints: 10_000 });
      if (r.times.length === 10_000) break;
      assert.ok(i < 200, `${r.times.length} of 10,000 results readable`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await page.goto(`${srv.url}/#/object/web1/rtt`);
    const figure = page.getByRole("figure", { name: "Chart of rtt" });
    await figure.locator("canvas").waitFor({ timeout: 30_000 });
    assert.equal(await figure.getAttribute("data-points"), "10000");
    const chart = figure.locator(".chart");
    for (let i = 0; (await chart.getAttribute("data-draw-ms")) === null; i++) {
      assert.ok(i < 400, "the chart is drawn");
      await page.waitForTimeout(50);
    }
    await shot("object-chart-10000");
    console.log(`10,000 points: first draw ${await chart.getAttribute("data-draw-ms")} ms`);
    assert.ok((await pixelsOf(figure.locator("canvas"), "--accent")) > 200, "the series is drawn");
    await shot("object-chart-10000");
  });

  test("the pages above ran under the dashboard's Content-Security-Policy", () => {
    assert.equal(cspViolations.length, 0, cspViolations.join("\n"));
  });
});
