import { hostname } from "node:os";
import { connect } from "@nats-io/transport-node";
import { systemClock } from "../model/clock.js";
import { natsConnectOptions, startWorker, type Worker, workerInboxPrefix } from "../zones/index.js";
import { createCheckers } from "./checkers.js";
import { type FlagSpec, formatUsage, parseFlags } from "./flags.js";
import { createJsonLogger, isLogLevel } from "./logger.js";
import { decodeNatsAuth, NATS_AUTH_FLAGS } from "./nats-flags.js";

/** The flags of `lookout worker`. */
export const WORKER_FLAGS: readonly FlagSpec[] = [
  { name: "nats", kind: "string", default: "", usage: "NATS server URL(s), comma-separated (required)" },
  { name: "zone", kind: "string", default: "", usage: "the zone whose checks this worker runs (required)" },
  { name: "concurrency", kind: "string", default: "100", usage: "the most checks running at once" },
  { name: "name", kind: "string", default: "", usage: "this worker's name (default: host name and pid)" },
  {
    name: "nats-replicas",
    kind: "string",
    default: "1",
    usage: "replicas of streams the worker must create",
  },
  ...NATS_AUTH_FLAGS,
  { name: "log-level", kind: "string", default: "info", usage: "debug, info, warn or error" },
];

const PREAMBLE = "  lookout worker -nats URL -zone NAME [-concurrency N]   run a zone's checks\n\nFlags:";

interface Io {
  readonly stderr: NodeJS.WritableStream;
}

/**
 * `lookout worker`: connects to NATS, runs the jobs of one zone until SIGTERM or SIGINT, then stops
 * taking jobs, finishes the checks it runs and leaves. It reads no config file: each job carries
 * its check. Resolves with the exit code.
 */
export async function runWorkerCli(argv: readonly string[], io: Io): Promise<number> {
  const parsed = parseFlags(WORKER_FLAGS, argv, process.env);
  if (!parsed.ok || parsed.rest.length > 0) {
    if (!parsed.ok && !parsed.help) io.stderr.write(`${parsed.error}\n`);
    if (parsed.ok) io.stderr.write(`unexpected argument: ${parsed.rest[0]}\n`);
    io.stderr.write(formatUsage("lookout worker", WORKER_FLAGS, PREAMBLE));
    return !parsed.ok && parsed.help ? 0 : 2;
  }
  const v = parsed.values;
  const nats = String(v.nats);
  const zone = String(v.zone);
  const concurrency = Number(v.concurrency);
  const replicas = Number(v["nats-replicas"]);
  const level = String(v["log-level"]);
  const auth = decodeNatsAuth(v, process.env);
  const problems = [
    auth.ok ? "" : auth.error,
    nats === "" ? "-nats is required" : "",
    zone === "" ? "-zone is required" : "",
    Number.isInteger(concurrency) && concurrency >= 1
      ? ""
      : `invalid value "${v.concurrency}" for -concurrency`,
    [1, 3, 5].includes(replicas) ? "" : `invalid value "${v["nats-replicas"]}" for -nats-replicas`,
    isLogLevel(level) ? "" : `invalid value "${level}" for -log-level`,
  ].filter((p) => p !== "");
  if (problems.length > 0 || !isLogLevel(level) || !auth.ok) {
    io.stderr.write(`${problems.join("\n")}\n`);
    return 2;
  }
  const id = String(v.name) === "" ? `${hostname()}-${process.pid}` : String(v.name);
  const logger = createJsonLogger(level, undefined, { component: "worker", zone, worker: id });
  let signalled = false;
  const signal = new Promise<void>((resolve) => {
    const stop = () => {
      signalled = true;
      resolve();
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
  // Replies come to the zone's own inbox space, which NATS permissions can confine it to.
  const nc = await connect(
    natsConnectOptions(nats, `lookout-worker-${id}`, auth.auth, workerInboxPrefix(zone)),
  );
  const checkers = createCheckers({ clock: systemClock });
  let worker: Worker | undefined;
  // A worker confined by NATS permissions cannot create its streams or zone consumer: it waits for
  // the server to (docs/zones.md, Securing NATS), as it would for JetStream to elect leaders.
  while (worker === undefined && !signalled) {
    try {
      worker = await startWorker({
        nc,
        zone,
        id,
        concurrency,
        checkers: checkers.checkers,
        clock: systemClock,
        logger,
        replicas,
      });
    } catch (e) {
      logger.warn("cannot start; retrying in 2 s", { error: String(e) });
      await Promise.race([signal, new Promise((r) => setTimeout(r, 2_000))]);
    }
  }
  await signal;
  logger.info("stopping", { done: worker?.done ?? 0 });
  await worker?.stop();
  await checkers.close();
  await nc.close();
  return 0;
}
