import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { Counter, Gauge, type Registry } from "prom-client";
import type { Core, CoreOptions } from "../core/core.js";
import type { Logger } from "../model/logger.js";
import type { ReplicaStatus } from "../store/protocol.js";
import type { CommandStreamOptions } from "../zones/command-stream.js";
import { writeFileAtomic } from "./atomic-write.js";
import type { Reloader } from "./reload.js";
import type { ServerOptions } from "./server-flags.js";

/**
 * Whether the server is a replica of the command log (docs/replication.md): with `-nats` and
 * `-leader-election`, every server applies one command log on JetStream.
 */
export function isReplicated(o: ServerOptions): boolean {
  return o.nats !== undefined && o.nats !== "" && o.leaderElection === true;
}

/** Core's replication options for this server; `id` names it (the lease's holder name). */
export function coreReplication(o: ServerOptions, id: string): NonNullable<CoreOptions["replication"]> {
  const options: CommandStreamOptions = {
    servers: o.nats ?? "",
    ...(o.natsAuth === undefined ? {} : { auth: o.natsAuth }),
    name: `lookout-log-${id}`,
    replicas: o.natsReplicas ?? 1,
  };
  return {
    workerUrl: new URL("../zones/replicated-writer-worker.js", import.meta.url),
    // Unique per start: a restarted server's group numbers begin again at 1.
    origin: `${id}-${randomBytes(6).toString("hex")}`,
    options,
  };
}

/** sha256 of a document's text, as the loader digests the -config file. */
function digestOf(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * The -config file's text and its digest in the command log: sha256 of the text alone. (A
 * server's own digest of its config also covers its listen address, which differs from server to
 * server; the log's must not, or each server would publish the same document anew.) Undefined
 * without a file. Read after the reload loaded it: a file changed in between is published by the
 * next reload.
 */
export async function configSource(path: string): Promise<{ digest: string; source: string } | undefined> {
  if (path === "") return undefined;
  try {
    const source = await readFile(path, "utf8");
    return { digest: digestOf(source), source };
  } catch {
    return undefined;
  }
}

/**
 * Keeps this server's -config file and its reads on the config the command log applies: when a
 * group of another server names a config and carries its source, the file is replaced with it
 * (atomically) and reloaded through the one fan-out, so a restart, the scheduler, the sinks and
 * the notifier of this server run what the log runs. The engine applies the config from the log
 * in the log's order whatever this does.
 */
export function followConfigSources(o: {
  readonly core: Core;
  readonly configPath: string;
  readonly reloader: Reloader;
  readonly logger: Logger;
}): void {
  let chain: Promise<unknown> = Promise.resolve();
  o.core.onConfigSource((digest, source) => {
    if (source === undefined || o.configPath === "") {
      o.logger.warn("another server applied a config whose source this server has not got", { digest });
      return;
    }
    chain = chain.then(async () => {
      try {
        const current = await readFile(o.configPath, "utf8").catch(() => "");
        if (digestOf(current) !== digest) await writeFileAtomic(o.configPath, source);
        const result = await o.reloader.reload("replication");
        o.logger.info("took the config another server applied", { digest, ok: result.ok });
      } catch (e) {
        o.logger.error("cannot take the config another server applied", { digest, error: String(e) });
      }
    });
  });
}

/**
 * Whether this server has applied the command log up to its last group as last seen: only then
 * may it take the lease (a replica far behind would lead with state the log has moved past).
 */
export function caughtUp(replica: ReplicaStatus | undefined): boolean {
  // Not `connected`: its last look at the log may have failed while NATS elects a stream leader,
  // and the lease itself tells whether NATS answers.
  return replica !== undefined && replica.error === undefined && replica.applied >= replica.last;
}

/** The replica gauges of /metrics (docs/metrics.md). */
export function registerReplicaMetrics(registry: Registry, core: Core): void {
  const status = () => core.replica;
  new Gauge({
    name: "lookout_replica_applied_position",
    help: "The command log position of the last group this server applied",
    registers: [registry],
    collect() {
      this.set(status()?.applied ?? 0);
    },
  });
  new Gauge({
    name: "lookout_replica_lag_positions",
    help: "Command log groups stored and not yet applied on this server (as of the last look at the log)",
    registers: [registry],
    collect() {
      const s = status();
      this.set(s === undefined ? 0 : Math.max(0, s.last - s.applied));
    },
  });
  new Gauge({
    name: "lookout_replica_connected",
    help: "1 while the command log answers this server",
    registers: [registry],
    collect() {
      this.set(status()?.connected === true ? 1 : 0);
    },
  });
  new Counter({
    name: "lookout_replica_lost_writes_total",
    help: "Writes of this server's that the command log acknowledged and then lost; each was published again (see the log)",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(core.lostWrites);
    },
  });
  new Gauge({
    name: "lookout_replica_stopped",
    help: "1 when this server stopped applying the command log (a group it cannot read; see its log)",
    registers: [registry],
    collect() {
      this.set(status()?.error === undefined ? 0 : 1);
    },
  });
}
