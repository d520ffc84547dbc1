import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { hashPassword } from "../auth/index.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";
import { type Browser, CHROMIUM, launchChromium } from "./chromium.js";
import { DEFAULT_WEB_DIR } from "./static-site.js";

const SERVED =
  'hosts: web1: {\n\taddress: "127.0.0.1"\n\tcheck: type: "passive"\n\tcheck: freshness_threshold: "24h"\n}\n';
const PASSWORD = "correct horse battery staple";

/**
 * The admin pages in Debian's chromium against the real binary with `-auth-config`: a viewer is
 * offered no admin page; an admin signs in with name and password (the session cookie), the config
 * editor shows the real engine's diagnostic at its line and column, a fixed document is applied and
 * served, the audit page shows the record, and signing out ends the session.
 */
describe("admin pages in chromium", () => {
  let dir: string;
  let shots: string;
  let srv: ServerProcess;
  let browser: Browser;
  const cspViolations: string[] = [];

  before(async () => {
    assert.ok(existsSync(join(DEFAULT_WEB_DIR, "index.html")), "dist/web is missing: run npm run build");
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`);
    dir = await mkdtemp(join(tmpdir(), "lookout-web-admin-"));
    shots = await mkdtemp(join(tmpdir(), "lookout-screenshots-admin-"));
    console.log(`screenshots: ${shots}`);
    const hash = await hashPassword(PASSWORD);
    await writeFile(join(dir, "lookout.cue"), SERVED);
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
  });
  after(async () => {
    await browser?.close();
    await srv?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const signIn = async (page: import("playwright-core").Page, name: string, password: string) => {
    await page.getByRole("link", { name: "Sign in" }).first().click();
    const form = page.getByRole("form", { name: "Sign in with a name and password" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Password").fill(password);
    await form.getByRole("button", { name: "Sign in" }).click();
  };

  test("a wrong password is refused; a viewer is offered no admin page", async () => {
    const page = await browser.context.newPage();
    try {
      await page.goto(`${srv.url}/#/config`);
      await page.getByText("This page needs an admin identity").waitFor();
      await signIn(page, "vic", "not the password");
      await page.getByRole("alert").getByText("wrong name or password").waitFor();
      await page
        .getByRole("form", { name: "Sign in with a name and password" })
        .getByLabel("Password")
        .fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.getByText("vic (viewer)").waitFor();
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      assert.equal(
        await page.getByRole("navigation").getByRole("link", { name: "Config", exact: true }).count(),
        0,
      );
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByText("vic (viewer)").waitFor({ state: "detached" });
    } finally {
      await page.close();
    }
  });

  test("sign in, validate with a diagnostic at its line, fix and apply, see the audit record", async () => {
    const page = await browser.context.newPage();
    const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`) });
    await page.goto(`${srv.url}/#/config`);
    await page.getByText("This page needs an admin identity").waitFor();
    await signIn(page, "alice", PASSWORD);
    await shot("login");
    await page.getByText("alice (admin)").waitFor();
    await page.getByRole("navigation").getByRole("link", { name: "Config", exact: true }).click();

    const editor = page.getByLabel("Configuration document (CUE)");
    await editor.waitFor();
    assert.equal(await editor.inputValue(), SERVED);
    // Line 3, column 15: a string where the schema wants one of the check types.
    await editor.fill(SERVED.replace('type: "passive"', 'type: "bogus"'));
    await page.getByRole("button", { name: "Validate" }).click();
    const diagnostic = page.getByRole("button", { name: /:3:15$/ });
    await diagnostic.waitFor();
    assert.equal(await page.locator(".gutter .bad").textContent(), "3");
    await diagnostic.click();
    const cursor = await editor.evaluate(
      (el) => (el as unknown as { selectionStart: number }).selectionStart,
    );
    assert.equal(cursor, SERVED.indexOf('"passive"'), "the cursor is at line 3, column 15");
    await shot("config-diagnostic");

    const fixed = `${SERVED.replace("127.0.0.1", "127.0.0.2")}hosts: db1: {\n\taddress: "127.0.0.1"\n\tcheck: type: "passive"\n\tcheck: freshness_threshold: "24h"\n}\n`;
    await editor.fill(fixed);
    await page.getByRole("button", { name: "Validate" }).click();
    const plan = page.getByRole("table", { name: "Plan of changes" });
    await plan.waitFor();
    const objects = plan.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "objects" }) });
    assert.deepEqual(
      (await objects.getByRole("cell").allTextContents()).slice(0, 3),
      ["1", "0", "1"],
      "one host added (db1), one changed (web1's address)",
    );
    await shot("config-plan");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("Applied").waitFor();
    await shot("config-applied");
    await page.reload();
    await page.getByLabel("Configuration document (CUE)").waitFor();
    const served = page.getByLabel("Configuration document (CUE)");
    for (let i = 0; i < 100 && (await served.inputValue()) !== fixed; i++) await page.waitForTimeout(50);
    assert.equal(await served.inputValue(), fixed, "GetConfig serves the applied document");

    await page.getByRole("navigation").getByRole("link", { name: "Audit" }).click();
    await page.getByRole("cell", { name: "/svc.v1.AdminService/ApplyConfig" }).first().waitFor();
    await page.getByText("alice (admin)").first().waitFor();
    await shot("audit");

    // Signed in, the acknowledge dialog's author is alice's name, and so is the one recorded.
    const down = await page.request.post(`${srv.url}/svc.v1.CommandService/ProcessCheckResult`, {
      data: { host: "db1", exitStatus: 2, output: "DOWN" },
    });
    assert.equal(down.status(), 200, "the session cookie goes with the page's requests");
    await page.goto(`${srv.url}/#/status`);
    await page.getByRole("button", { name: "Acknowledge db1" }).click();
    const dialog = page.getByRole("dialog");
    const author = dialog.getByLabel("Author");
    assert.equal(await author.inputValue(), "alice");
    assert.equal(await author.getAttribute("readonly"), "");
    await dialog.getByLabel("Comment").fill("looking");
    await dialog.getByRole("button", { name: "Acknowledge problem" }).click();
    await page.getByRole("button", { name: "Remove acknowledgement of db1" }).waitFor();
    await page.goto(`${srv.url}/#/object/db1`);
    await page.getByText(/By alice/).waitFor();

    await page.getByRole("button", { name: "Sign out" }).click();
    await page
      .getByRole("navigation")
      .getByRole("link", { name: "Config", exact: true })
      .waitFor({ state: "detached" });
    // The session ended on the server too: the cookie no longer opens AdminService.
    await page.goto(`${srv.url}/#/config`);
    await page.getByText("This page needs an admin identity").waitFor();
    await page.close();
  });

  test("the pages above ran under the dashboard's Content-Security-Policy", () => {
    assert.equal(cspViolations.length, 0, cspViolations.join("\n"));
  });
});
