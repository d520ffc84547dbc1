import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { createCommandService } from "../api/command-service.js";
import {
  AuditOutcome,
  type AuditRecord,
  AuditRecordSchema,
  AuditSource,
  ConfigDiagnosticsSchema,
  Role,
} from "../api/gen/svc/v1/types_pb.js";
import { createHttpHandler } from "../api/http-handler.js";
import { DualProtocolServer } from "../api/listener.js";
import { createQueryService } from "../api/query-service.js";
import { createMetricsRegistry } from "../app/metrics.js";
import { createAuthGate } from "../auth/index.js";
import { Core } from "../core/core.js";
import { fleetConfig } from "../core/fleet-config.js";
import { silentLogger } from "../model/logger.js";
import { type Browser, CHROMIUM, launchChromium } from "./chromium.js";
import { createStaticSite, DEFAULT_WEB_DIR } from "./static-site.js";

const TOKEN = "admin-token-for-the-test";
const SERVED = 'hosts: web1: {\n\taddress: "127.0.0.1"\n\tcheck: type: "passive"\n}\n';

/**
 * A stand-in AdminService with the reference's shapes (docs/api.md; the real one is issue 19's):
 * admin RPCs need `Authorization: Bearer TOKEN`; a document containing `oops` is rejected with
 * invalid_argument and a ConfigDiagnostics detail at that word's line and column; ApplyConfig
 * keeps the document and writes an audit record.
 */
function createStandInAdmin() {
  let served = SERVED;
  const audit: AuditRecord[] = [];
  const gate = (ctx: HandlerContext) => {
    if (ctx.requestHeader.get("authorization") !== `Bearer ${TOKEN}`) {
      throw new ConnectError("no identity", Code.Unauthenticated);
    }
  };
  const check = (cue: string | undefined) => {
    if (cue === undefined) throw new ConnectError("missing cue", Code.InvalidArgument);
    const lines = cue.split("\n");
    const line = lines.findIndex((l) => l.includes("oops"));
    if (line < 0) return;
    throw new ConnectError("configuration rejected", Code.InvalidArgument, undefined, [
      {
        desc: ConfigDiagnosticsSchema,
        value: {
          diagnostics: [
            {
              message: 'reference "oops" not found',
              file: "lookout.cue",
              line: line + 1,
              column: (lines[line] ?? "").indexOf("oops") + 1,
            },
          ],
        },
      },
    ]);
  };
  return {
    getConfig: (_: unknown, ctx: HandlerContext) => {
      gate(ctx);
      return { cue: served };
    },
    validateConfig: (req: { cue?: string }, ctx: HandlerContext) => {
      gate(ctx);
      check(req.cue);
      return {};
    },
    applyConfig: (req: { cue?: string }, ctx: HandlerContext) => {
      gate(ctx);
      check(req.cue);
      served = req.cue ?? "";
      audit.unshift(
        create(AuditRecordSchema, {
          at: timestampNow(),
          source: AuditSource.API,
          principal: { name: "alice", role: Role.ADMIN },
          peer: "127.0.0.1:40000",
          rpc: "/svc.v1.AdminService/ApplyConfig",
          commandJson: "{}",
          outcome: AuditOutcome.ACCEPTED,
        }),
      );
      return {};
    },
    listAuditRecords: (_: unknown, ctx: HandlerContext) => {
      gate(ctx);
      return { records: audit };
    },
  };
}

/**
 * The admin pages in Debian's chromium: sign in, the config editor with a diagnostic shown at its
 * line and column, a fixed document applied, and the audit record that left, against the real
 * Query and Command services and a stand-in AdminService.
 */
describe("admin pages in chromium", () => {
  const dir = mkdtempSync(join(tmpdir(), "lookout-web-admin-"));
  let core: Core;
  let server: DualProtocolServer;
  let url: string;
  let browser: Browser;
  const shots = mkdtempSync(join(tmpdir(), "lookout-screenshots-admin-"));

  before(async () => {
    assert.ok(existsSync(join(DEFAULT_WEB_DIR, "index.html")), "dist/web is missing: run npm run build");
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`);
    console.log(`screenshots: ${shots}`);
    core = await Core.open({ dataDir: dir, config: fleetConfig({ hosts: 2, servicesPerHost: 2 }) });
    const site = createStaticSite();
    server = new DualProtocolServer(
      createHttpHandler({
        readOnly: false,
        authConfigured: true,
        // Open (no identities): the stand-in AdminService is what this test is about.
        gate: createAuthGate({ apiToken: "" }),
        query: createQueryService({ version: "dev", core }),
        command: createCommandService({ core }),
        admin: createStandInAdmin(),
        metrics: createMetricsRegistry("dev"),
        page: () => "",
        site: (path, enc) => site.serve(path, enc),
        logger: silentLogger,
      }),
    );
    url = `http://127.0.0.1:${(await server.listen(0, "127.0.0.1")).port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await core?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("sign in, validate with a diagnostic at its line, fix and apply, see the audit record", async () => {
    const page = await browser.context.newPage();
    const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`) });
    await page.goto(`${url}/#/config`);
    await page.getByText("This page needs an admin identity").waitFor();
    await page.getByRole("link", { name: "Sign in" }).first().click();
    await page.getByLabel("Token").fill(TOKEN);
    await shot("login");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("navigation").getByRole("link", { name: "Config" }).click();

    const editor = page.getByLabel("Configuration document (CUE)");
    await editor.waitFor();
    assert.equal(await editor.inputValue(), SERVED);
    await editor.fill(SERVED.replace('type: "passive"', "type: oops"));
    await page.getByRole("button", { name: "Validate" }).click();
    const diagnostic = page.getByRole("button", { name: "lookout.cue:3:15" });
    await diagnostic.waitFor();
    await page.getByText('reference "oops" not found').waitFor();
    assert.equal(await page.locator(".gutter .bad").textContent(), "3");
    await diagnostic.click();
    const cursor = await editor.evaluate(
      (el) => (el as unknown as { selectionStart: number }).selectionStart,
    );
    assert.equal(cursor, SERVED.indexOf('"passive"'), "the cursor is at line 3, column 15");
    await shot("config-diagnostic");

    await editor.fill(SERVED.replace("127.0.0.1", "127.0.0.2"));
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("Applied").waitFor();
    await shot("config-applied");

    await page.getByRole("navigation").getByRole("link", { name: "Audit" }).click();
    await page.getByRole("cell", { name: "/svc.v1.AdminService/ApplyConfig" }).waitFor();
    await page.getByText("alice (admin)").waitFor();
    await shot("audit");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("navigation").getByRole("link", { name: "Config" }).waitFor({ state: "detached" });
  });
});
