import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** Debian's chromium (package `chromium`); Playwright downloads no browser of its own. */
export const CHROMIUM = "/usr/bin/chromium";

/** Flags that keep Chromium off the network (no updates, no sync, no QUIC) and fit a container. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A headless Chromium with a fresh profile; close() also removes the profile. */
export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launches Debian's chromium through playwright-core with a fresh --user-data-dir. Pages run under
 * the dashboard's Content-Security-Policy, which forbids eval: wait with locators, not
 * `waitForFunction("…")` (a string predicate is eval'd in the page), unless `bypassCSP` (benchmarks).
 */
export async function launchChromium(
  viewport = { width: 1280, height: 800 },
  opts: { bypassCSP?: boolean } = {},
): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), "lookout-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    ...(opts.bypassCSP === true ? { bypassCSP: true } : {}),
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
