import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { APIRequestContext, Page } from "playwright-core";
import { hashPassword } from "../auth/index.js";
import { testPki } from "../testing/peers/certs.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";
import { type Browser, CHROMIUM, launchChromium } from "./chromium.js";
import { DEFAULT_WEB_DIR } from "./static-site.js";

const PASSWORD = "correct horse battery staple";
const host = (name: string, extra = "") =>
  `hosts: ${name}: {\n\taddress: "127.0.0.1"\n\tcheck: {type: "passive", freshness_threshold: "24h"}\n${extra}}\n`;
const V1 = host("web1");
const V2 = V1 + host("db1");

/**
 * The config history page in Debian's chromium against the real binary with `-auth-config`: an
 * admin lists the versions, reads one, sees what a version changed (the text diff and the object
 * diff), rolls back after a confirmation and sees a version that no longer loads refused with its
 * diagnostics; a viewer is offered no such page, and the server refuses its rollback.
 */
describe("config history page in chromium", () => {
  let dir: string;
  let shots: string;
  let srv: ServerProcess;
  let browser: Browser;
  let page: Page;
  let ca: string;
  const cspViolations: string[] = [];
  const pki = testPki();

  before(async () => {
    assert.ok(existsSync(join(DEFAULT_WEB_DIR, "index.html")), "dist/web is missing: run npm run build");
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`);
    dir = await mkdtemp(join(tmpdir(), "lookout-web-history-"));
    shots = await mkdtemp(join(tmpdir(), "lookout-screenshots-config-history-"));
    console.log(`screenshots: ${shots}`);
    ca = join(dir, "ca.pem");
    await writeFile(ca, pki.ca);
    const hash = await hashPassword(PASSWORD);
    await writeFile(join(dir, "lookout.cue"), V1);
    await writeFile(
      join(dir, "identities.cue"),
      `identities: {\n\talice: {role: "admin", password: ${JSON.stringify(hash)}}\n\tvic: {role: "viewer", password: ${JSON.stringify(hash)}}\n}\n`,
    );
    srv = await startServer(
      [
        "-config",
        join(dir, "lookout.cue"),
        "-auth-config",
        join(dir, "identities.cue"),
        "-data-dir",
        join(dir, "data"),
      ],
      {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          LOOKOUT_SESSION_SECRET: "a session secret for the test only",
        },
      },
    );
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
  /** Signs the browser in (the session cookie goes with the page's requests too). */
  const signIn = async (name: string) => {
    const r = await page.request.post(`${srv.url}/auth/login`, { data: { name, password: PASSWORD } });
    assert.equal(r.status(), 200, await r.text());
  };
  const adminCall = (req: APIRequestContext, rpc: string, body: unknown) =>
    req.post(`${srv.url}/svc.v1.AdminService/${rpc}`, { data: body });

  test("a viewer is offered no config history, and the server refuses its rollback", async () => {
    await signIn("vic");
    await page.goto(`${srv.url}/#/config-history`);
    await page.getByText("Your role is not admin").waitFor();
    await page.getByRole("navigation").getByRole("link", { name: "Overview" }).waitFor();
    assert.equal(await page.getByRole("navigation").getByRole("link", { name: "Config history" }).count(), 0);
    assert.equal(await page.getByRole("table", { name: "Config versions" }).count(), 0);
    const refused = await adminCall(page.request, "RollbackConfig", { version: "1" });
    assert.equal(refused.status(), 403);
    assert.equal(((await refused.json()) as { code: string }).code, "permission_denied");
    await shot("viewer");
    await page.request.post(`${srv.url}/auth/logout`);
  });

  test("an admin sees the versions, one's text and what it changed", async () => {
    await signIn("alice");
    for (const cue of [
      V2,
      V1 + host("tls", `\tservices: cert: check: {type: "tls", address: "127.0.0.1:1", ca_file: "${ca}"}\n`),
      V2,
    ]) {
      const r = await adminCall(page.request, "ApplyConfig", { cue });
      assert.equal(r.status(), 200, await r.text());
    }
    // A hash change alone does not load the page again: reload, so it learns the new role.
    await page.goto(`${srv.url}/#/`);
    await page.reload();
    await page.getByRole("navigation").getByRole("link", { name: "Config history" }).click();
    const table = page.getByRole("table", { name: "Config versions" });
    await table.getByRole("rowheader", { name: /^v4/ }).waitFor();
    assert.deepEqual(
      (await table.getByRole("rowheader").allTextContents()).map((t) => t.trim()),
      ["v4in force", "v3", "v2", "v1"],
    );
    assert.match((await table.getByRole("row").filter({ hasText: "v1" }).textContent()) ?? "", /startup/);
    assert.match((await table.getByRole("row").filter({ hasText: "v2" }).textContent()) ?? "", /alice/);

    await page.getByRole("link", { name: "Show version 1" }).click();
    const text = page.getByTestId("version-text");
    await text.waitFor();
    assert.equal(await text.textContent(), V1);

    await page.getByRole("link", { name: "Changes in version 2" }).click();
    await page.getByRole("heading", { name: "Version 1 → version 2" }).waitFor();
    const diff = page.getByTestId("unified-diff");
    await diff.waitFor();
    assert.deepEqual(await diff.locator(".d-file").allTextContents(), ["--- v1\n", "+++ v2\n"]);
    const added = await diff.locator(".d-add").allTextContents();
    assert.ok(added.includes("+hosts: db1: {\n"), added.join(""));
    assert.equal(await diff.locator(".d-del").count(), 0);
    const objects = page
      .getByRole("table", { name: "Plan of changes" })
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: "objects" }) });
    assert.deepEqual((await objects.getByRole("cell").allTextContents()).slice(0, 3), ["1", "0", "0"]);
    assert.match(page.url(), /from=1&to=2/, "the comparison is in the address");
    await shot("diff");

    // The compare form: any two versions.
    const form = page.getByRole("form", { name: "Compare two versions" });
    await form.getByLabel("From version").fill("4");
    await form.getByLabel("To version").fill("2");
    await form.getByRole("button", { name: "Compare" }).click();
    await page.getByRole("heading", { name: "Version 4 → version 2" }).waitFor();
    await page.getByText("The two documents are the same.").waitFor();
  });

  test("an admin rolls back after a confirmation; a version that no longer loads is refused with diagnostics", async () => {
    await page.getByRole("button", { name: "Roll back to version 1" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: "Roll back to version 1?" }).waitFor();
    await shot("rollback-confirm");
    // Cancel changes nothing.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    assert.equal(
      ((await (await adminCall(page.request, "GetConfig", {})).json()) as { cue: string }).cue,
      V2,
    );

    await page.getByRole("button", { name: "Roll back to version 1" }).click();
    await dialog.getByRole("button", { name: "Roll back to version 1" }).click();
    await page.getByText("Rolled back to version 1: applied and recorded as version 5.").waitFor();
    const table = page.getByRole("table", { name: "Config versions" });
    await table
      .getByRole("row")
      .filter({ hasText: "rollback to v1" })
      .getByRole("rowheader", { name: /^v5/ })
      .waitFor();
    assert.equal(
      ((await (await adminCall(page.request, "GetConfig", {})).json()) as { cue: string }).cue,
      V1,
    );
    await shot("rolled-back");

    await rm(ca);
    await page.getByRole("button", { name: "Roll back to version 3" }).click();
    await dialog.getByRole("button", { name: "Roll back to version 3" }).click();
    const refused = page.getByText(
      "Version 3 no longer loads; the rollback was refused and nothing changed.",
    );
    await refused.waitFor();
    assert.match((await page.locator(".outcome .diagnostics").textContent()) ?? "", /ca_file/);
    assert.equal(
      ((await (await adminCall(page.request, "GetConfig", {})).json()) as { cue: string }).cue,
      V1,
    );
    await table.getByRole("rowheader", { name: /^v5/ }).waitFor();
    assert.equal(await table.getByRole("rowheader", { name: /^v6/ }).count(), 0);
    await shot("rollback-refused");
  });

  test("the pages above ran under the dashboard's Content-Security-Policy", () => {
    assert.equal(cspViolations.length, 0, cspViolations.join("\n"));
  });
});
