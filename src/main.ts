#!/usr/bin/env node
import { exitWhenFlushed } from "./app/exit.js";
import type { App } from "./app/index.js";

// The subcommands and the server are imported when used: `lookout validate` and `lookout cue` do
// not load (and compile) the server's modules, about 0.3 s of CPU before a single byte is read.

const USAGE_PREAMBLE = [
  "  lookout [flags]                                  run the server",
  "  lookout validate [-config-profile demo] FILE     check a configuration document",
  "  lookout cue export|vet FILE...                   evaluate CUE with Lookout's engine",
  "  lookout auth hash-password|mint-token            provision the -auth-config document",
  "  lookout status [-at TIME] [-server URL]          a running server's status, now or at a past moment",
  "  lookout config history|show|diff|rollback        a running server's config versions (LOOKOUT_TOKEN)",
  "",
  "Flags:",
].join("\n");

async function main(argv: string[]): Promise<number> {
  const io = { stdout: process.stdout, stderr: process.stderr };
  if (argv[0] === "validate" || argv[0] === "cue")
    (await import("./app/one-shot-heap.js")).applyOneShotHeap();
  if (argv[0] === "validate") {
    const { runValidateCli } = await import("./config/validate-cli.js");
    return runValidateCli(argv.slice(1), io);
  }
  if (argv[0] === "cue") return (await import("./cue/cli.js")).runCueCli(argv.slice(1), io);
  if (argv[0] === "auth") {
    const { runAuthCli } = await import("./auth/cli.js");
    return runAuthCli(argv.slice(1), { ...io, stdin: process.stdin });
  }
  if (argv[0] === "config") {
    const { runConfigCli } = await import("./cli/config-cli.js");
    return runConfigCli(argv.slice(1), { ...io, env: process.env });
  }
  if (argv[0] === "worker") return (await import("./app/worker-command.js")).runWorkerCli(argv.slice(1), io);
  if (argv[0] === "status") return (await import("./cli/status-command.js")).runStatusCli(argv.slice(1), io);
  const {
    App,
    createJsonLogger,
    decodeServerOptions,
    defaultVersionFile,
    formatUsage,
    parseFlags,
    resolveVersion,
    SERVER_FLAGS,
    StartupError,
  } = await import("./app/index.js");
  const parsed = parseFlags(SERVER_FLAGS, argv, process.env);
  if (!parsed.ok) {
    if (!parsed.help) process.stderr.write(`${parsed.error}\n`);
    process.stderr.write(formatUsage("lookout", SERVER_FLAGS, USAGE_PREAMBLE));
    return parsed.help ? 0 : 2;
  }
  if (parsed.rest.length > 0) {
    process.stderr.write(`unexpected argument: ${parsed.rest[0]}\n`);
    process.stderr.write(formatUsage("lookout", SERVER_FLAGS, USAGE_PREAMBLE));
    return 2;
  }
  const decoded = decodeServerOptions(parsed.values);
  if (!decoded.ok) {
    process.stderr.write(`${decoded.error}\n`);
    return 2;
  }
  const logger = createJsonLogger(decoded.options.logLevel);
  let app: App;
  try {
    app = await App.start(decoded.options, { logger, version: resolveVersion(defaultVersionFile()) });
  } catch (e) {
    if (e instanceof StartupError) {
      logger.error("cannot start", { error: e.message });
      return 1;
    }
    throw e;
  }
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info("signal received", { signal });
      app.stop().then(
        () => resolve(0),
        (e: unknown) => {
          logger.error("shutdown failed", { error: e });
          resolve(1);
        },
      );
    };
    process.on("SIGHUP", () => {
      logger.info("signal received", { signal: "SIGHUP" });
      void app.reload();
    });
    process.on("SIGTERM", () => stop("SIGTERM"));
    process.on("SIGINT", () => stop("SIGINT"));
  });
}

main(process.argv.slice(2)).then(
  (code) => exitWhenFlushed(code),
  (e: unknown) => {
    process.stderr.write(`lookout: ${(e as Error).stack ?? String(e)}\n`);
    exitWhenFlushed(1);
  },
);
