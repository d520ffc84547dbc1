import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMetricsRegistry } from "../app/metrics.js";
import { Core } from "../core/core.js";
import type { Clock } from "../model/clock.js";
import type { Config } from "../model/config.js";
import { silentLogger } from "../model/logger.js";
import { createCommandService } from "./command-service.js";
import { createHttpHandler } from "./http-handler.js";
import { DualProtocolServer } from "./listener.js";
import { createQueryService } from "./query-service.js";

/** A Command+Query API over a real Core on a loopback port, for the service tests. */
export interface CoreTestServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly core: Core;
  close(): Promise<void>;
}

/** Starts the real HTTP handler (Connect, gRPC, gRPC-Web) with the real services over a Core in a temp dir. */
export async function startCoreTestServer(config: Config, clock?: Clock): Promise<CoreTestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "lookout-api-"));
  const core = await Core.open({ dataDir, config, ...(clock === undefined ? {} : { clock }) });
  const server = new DualProtocolServer(
    createHttpHandler({
      readOnly: false,
      authConfigured: false,
      query: createQueryService({ version: "dev", core }),
      command: createCommandService({ core }),
      admin: {},
      metrics: createMetricsRegistry("dev"),
      page: () => "",
      logger: silentLogger,
    }),
  );
  const address = await server.listen(0, "127.0.0.1");
  return {
    url: `http://127.0.0.1:${address.port}`,
    core,
    async close() {
      await server.close();
      await core.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A parsed JSON response body; tests inspect it field by field. */
// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are checked by the assertions that read them.
export type JsonBody = any;

/** POSTs a Connect JSON request; resolves with the HTTP status and the parsed body. */
export async function connectJson(
  url: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: JsonBody }> {
  const res = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
