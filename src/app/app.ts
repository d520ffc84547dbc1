import { access, constants } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import {
  createAdminService,
  createBearerTokenInterceptor,
  createCommandService,
  createHttpHandler,
  createQueryService,
  DualProtocolServer,
} from "../api/index.js";
import type { Logger } from "../model/logger.js";
import { placeholderPage } from "../web/index.js";
import { createMetricsRegistry } from "./metrics.js";
import { parseListen, type ServerOptions } from "./server-flags.js";

export interface AppDeps {
  readonly logger: Logger;
  readonly version: string;
}

/** A failure to start that the operator must fix (bad flag value, unreadable file, busy port). */
export class StartupError extends Error {
  override readonly name = "StartupError";
}

/**
 * The running Lookout: it wires the components together from the server options, owns their
 * lifecycle (start, stop) and is what tests run in-process. Only app/ knows the concrete
 * implementations of the seams.
 */
export class App {
  readonly address: AddressInfo;
  readonly metrics: Registry;
  readonly #server: DualProtocolServer;
  readonly #logger: Logger;

  private constructor(address: AddressInfo, metrics: Registry, server: DualProtocolServer, logger: Logger) {
    this.address = address;
    this.metrics = metrics;
    this.#server = server;
    this.#logger = logger;
  }

  /** Starts serving; rejects with a StartupError the operator can act on. */
  static async start(o: ServerOptions, deps: AppDeps): Promise<App> {
    const { logger, version } = deps;
    for (const [flag, path] of [
      ["-config", o.config],
      ["-auth-config", o.authConfig],
    ] as const) {
      if (path === "") continue;
      try {
        await access(path, constants.R_OK);
      } catch {
        throw new StartupError(`${flag} ${path}: file not readable`);
      }
    }
    const metrics = createMetricsRegistry(version);
    const handler = createHttpHandler({
      readOnly: o.readOnly,
      authConfigured: o.authConfig !== "",
      ...(o.apiToken === "" ? {} : { commandAuth: createBearerTokenInterceptor(o.apiToken) }),
      query: createQueryService({ version }),
      command: createCommandService(),
      admin: createAdminService(),
      metrics,
      page: () => placeholderPage(version),
      logger,
    });
    const server = new DualProtocolServer(handler);
    const listen = parseListen(o.listen);
    if (listen === undefined) throw new StartupError(`-listen ${o.listen}: want host:port`);
    let address: AddressInfo;
    try {
      address = await server.listen(listen.port, listen.host);
    } catch (e) {
      throw new StartupError(`-listen ${o.listen}: ${(e as Error).message}`);
    }
    logger.info("listening", {
      address: `${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`,
      readOnly: o.readOnly,
      commandAuth: o.apiToken !== "",
      admin: o.authConfig !== "" && !o.readOnly,
      version,
    });
    return new App(address, metrics, server, logger);
  }

  /** Stops accepting, lets in-flight calls finish (bounded), and releases everything. */
  async stop(): Promise<void> {
    this.#logger.info("shutting down");
    await this.#server.close();
    this.#logger.info("stopped");
  }
}
