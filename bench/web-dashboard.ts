/**
 * The dashboard with a large fleet: the real binary with 100,000 passive services (1,000 hosts ×
 * 100, every twentieth service CRITICAL and every fiftieth WARNING), driven by Debian's chromium.
 * Prints, for the status table and the overview, the first contentful paint and the first
 * meaningful paint (the first table row drawn, from navigation start), how long the whole fleet
 * took to load page by page, then frame times while the 100,000-row table scrolls (requestAnimationFrame
 * deltas and long tasks), and how long a sort and a search over all rows take to show.
 *
 *   node dist/bench/web-dashboard.js [hosts=1000] [servicesPerHost=100]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { CommandService } from "../src/api/gen/svc/v1/command_service_pb.js";
import { fleetDocument, fleetHost, fleetService } from "../src/core/fleet-config.js";
import { startServer } from "../src/testing/server-process.js";
import { launchChromium } from "../src/web/chromium.js";

const HOSTS = Number(process.argv[2] ?? 1000);
const SERVICES = Number(process.argv[3] ?? 100);

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
const f1 = (n: number): string => n.toFixed(1);

const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "lookout-web-bench-"));
try {
  writeFileSync(
    join(dir, "fleet.cue"),
    fleetDocument({
      hosts: HOSTS,
      servicesPerHost: SERVICES,
      extra: `views: "Rack 3": {selector: "rack=r3", description: "one tenth of the fleet"}`,
    }),
  );
  console.log(
    `${HOSTS} hosts × ${SERVICES} services; load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} CPUs`,
  );
  const t0 = performance.now();
  const srv = await startServer(["-config", join(dir, "fleet.cue"), "-data-dir", join(dir, "data")], {
    timeoutMs: 300_000,
  });
  console.log(`server listening after ${f1((performance.now() - t0) / 1000)} s`);
  // Its timings wait with waitForFunction predicates, which the dashboard's CSP (no eval) forbids.
  const browser = await launchChromium(undefined, { bypassCSP: true });
  try {
    // Results for every service, so rows carry output; some of them problems.
    const cmd = createClient(
      CommandService,
      createConnectTransport({ baseUrl: srv.url, httpVersion: "1.1" }),
    );
    for (let i = 0; i < HOSTS; i++) {
      const results = [];
      for (let j = 0; j < SERVICES; j++) {
        const n = i * SERVICES + j;
        const exitStatus = n % 20 === 0 ? 2 : n % 50 === 0 ? 1 : 0;
        results.push({
          host: fleetHost(i),
          service: fleetService(j),
          exitStatus,
          output: `${["OK", "WARNING", "CRITICAL"][exitStatus]} - synthetic result ${n}|load=${n % 7};5;10`,
        });
      }
      await cmd.processCheckResults({ results });
    }
    await new Promise((r) => setTimeout(r, 3000));
    const page = await browser.context.newPage();

    for (const [name, hash] of [
      ["status table", "#/status"],
      ["overview", "#/"],
    ] as const) {
      await page.goto("about:blank");
      await page.goto(`${srv.url}/${hash}`);
      await page.waitForSelector(".vtable tbody .vrow .badge", { timeout: 60_000 });
      const fmp = (await page.evaluate("performance.now()")) as number;
      const fcp = (await page.evaluate(
        "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0",
      )) as number;
      await page.waitForFunction(
        "!document.querySelector('.summary, .counts')?.textContent?.includes('loading')",
        undefined,
        { timeout: 120_000, polling: 50 },
      );
      const all = (await page.evaluate("performance.now()")) as number;
      console.log(
        `${name}: first contentful paint ${f1(fcp)} ms, first meaningful paint (first row) ${f1(fmp)} ms, ` +
          `all ${(HOSTS * (SERVICES + 1)).toLocaleString()} objects loaded ${f1(all)} ms`,
      );
    }

    await page.goto(`${srv.url}/#/status`);
    await page.waitForFunction(
      "!document.querySelector('.summary')?.textContent?.includes('loading')",
      undefined,
      {
        timeout: 120_000,
        polling: 50,
      },
    );
    // WEB_BENCH_PROFILE=1: a CPU profile of the page during the scroll, top functions by self time.
    const cdp = process.env.WEB_BENCH_PROFILE === "1" ? await page.context().newCDPSession(page) : undefined;
    await cdp?.send("Profiler.enable");
    await cdp?.send("Profiler.start");
    // Scroll the table 10 rows (360 px) per frame for 600 frames, a fast fling, recording frame gaps.
    const scroll = (await page.evaluate(`new Promise((resolve) => {
      const body = document.querySelector(".vtable tbody");
      const gaps = [];
      const long = [];
      const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) long.push(e.duration); });
      obs.observe({ type: "longtask", buffered: false });
      let last = performance.now();
      let n = 0;
      const step = () => {
        const now = performance.now();
        gaps.push(now - last);
        last = now;
        body.scrollTop += 10 * 36;
        if (++n < 600) requestAnimationFrame(step);
        else { obs.disconnect(); resolve({ gaps: gaps.slice(1), long, rows: document.querySelectorAll(".vrow").length, top: body.scrollTop }); }
      };
      requestAnimationFrame(step);
    })`)) as { gaps: number[]; long: number[]; rows: number; top: number };
    if (cdp !== undefined) {
      const { profile } = await cdp.send("Profiler.stop");
      const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
      const self = new Map<string, number>();
      (profile.samples ?? []).forEach((id, i) => {
        const f = nodes.get(id)?.callFrame;
        const k = `${f?.functionName || "(anonymous)"} ${f?.url.split("/").pop() ?? ""}:${f?.lineNumber ?? 0}`;
        self.set(k, (self.get(k) ?? 0) + (profile.timeDeltas?.[i] ?? 0) / 1000);
      });
      const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 15);
      console.log(
        `profile during the scroll (self ms):\n${top.map(([k, v]) => `  ${f1(v)} ${k}`).join("\n")}`,
      );
    }
    const fps = 1000 / (scroll.gaps.reduce((a, b) => a + b, 0) / scroll.gaps.length);
    console.log(
      `scrolling ${scroll.gaps.length} frames (10 rows each, to row ${Math.round(scroll.top / 36).toLocaleString()}): ` +
        `frame p50 ${f1(pct(scroll.gaps, 50))} ms, p95 ${f1(pct(scroll.gaps, 95))} ms, max ${f1(Math.max(...scroll.gaps))} ms, ` +
        `${f1(fps)} fps; frames over 50 ms: ${scroll.gaps.filter((g) => g > 50).length}; long tasks: ${scroll.long.length} ` +
        `(longest ${f1(Math.max(0, ...scroll.long))} ms); rows in the DOM: ${scroll.rows}`,
    );

    const timed = async (what: string, act: () => Promise<void>, done: string) => {
      const t = (await page.evaluate("performance.now()")) as number;
      await act();
      await page.waitForFunction(done, undefined, { polling: "raf", timeout: 60_000 });
      console.log(`${what}: ${f1(((await page.evaluate("performance.now()")) as number) - t)} ms`);
    };
    await page.evaluate("document.querySelector('.vtable tbody').scrollTop = 0");
    await timed(
      "sort every row by host (click to first row shown)",
      () => page.getByRole("button", { name: "Host", exact: true }).click(),
      "document.querySelector('.vrow .col-host')?.textContent === 'host-00000'",
    );
    await timed(
      "search 'synthetic result 42421' over all rows (typed to one row shown)",
      () => page.getByRole("searchbox").fill("synthetic result 42421"),
      "document.querySelector('.summary')?.textContent?.startsWith('1 shown')",
    );
    // A new problem while the table holds every object: the source follows the history feed.
    await page.getByRole("searchbox").fill("");
    await page.getByLabel("State").selectOption("unhandled");
    const t1 = performance.now();
    await cmd.processCheckResult({
      host: fleetHost(0),
      service: fleetService(1),
      exitStatus: 2,
      output: "fresh problem",
    });
    await page.getByText("fresh problem").waitFor({ timeout: 60_000 });
    console.log(`a new CRITICAL result shown in the unhandled filter after ${f1(performance.now() - t1)} ms`);
    console.log(`load average at the end ${loadavg()[0]?.toFixed(1)}`);
  } finally {
    await browser.close();
    await srv.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
