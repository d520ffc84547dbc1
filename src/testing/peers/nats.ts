import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { killChild } from "./peer.js";

/** One nats-server of a cluster the test started. */
export interface NatsNode {
  readonly name: string;
  /** nats://127.0.0.1:PORT */
  readonly url: string;
  readonly running: boolean;
  /** The PID of its current process (undefined before it started). */
  readonly pid: number | undefined;
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>;
  /** Starts it again with the same ports and store (after kill). */
  restart(): Promise<void>;
  /** What it printed (its first 1 MB; every start's). */
  log(): string;
}

export interface NatsCluster {
  readonly nodes: readonly NatsNode[];
  /** Every node's URL, comma-separated, as `-nats` takes them. */
  readonly urls: string;
  /** Kills every node and removes their stores. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen({ host: "127.0.0.1", port: 0 }, resolve));
  const a = s.address();
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return typeof a === "object" && a !== null ? a.port : 0;
}

/**
 * Starts Debian's nats-server with JetStream on loopback: one node (`size` 1) or a cluster of
 * `size` nodes routed to each other, each with its own store in a temporary directory. Resolves
 * once every node says it is ready (and, for a cluster, once JetStream has a meta leader). `config`
 * adds lines to each node's config file, as NATS users write it.
 */
export async function startNatsCluster(
  size = 1,
  o: {
    /** More lines of each node's config (`authorization { … }`, `tls { … }`). */
    readonly config?: string;
  } = {},
): Promise<NatsCluster> {
  const dir = mkdtempSync(join(tmpdir(), "lookout-nats-"));
  const ports: { client: number; cluster: number }[] = [];
  for (let i = 0; i < size; i++) ports.push({ client: await freePort(), cluster: await freePort() });
  const routes = ports.map((p) => `nats-route://127.0.0.1:${p.cluster}`);
  const nodes: (NatsNode & { start(): Promise<void> })[] = ports.map((p, i) => {
    const name = `n${i + 1}`;
    const conf = join(dir, `${name}.conf`);
    const lines = [
      `server_name: ${name}`,
      "listen: 127.0.0.1:" + p.client,
      `jetstream { store_dir: "${join(dir, name)}" }`,
    ];
    if (o.config !== undefined) lines.push(o.config);
    if (size > 1) {
      lines.push(`cluster { name: lookout, listen: 127.0.0.1:${p.cluster}, routes: [${routes.join(", ")}] }`);
    }
    writeFileSync(conf, `${lines.join("\n")}\n`);
    let child: ChildProcess | undefined;
    let printed = "";
    const node = {
      name,
      url: `nats://127.0.0.1:${p.client}`,
      get running() {
        return child !== undefined && child.exitCode === null && child.signalCode === null;
      },
      get pid() {
        return child?.pid;
      },
      async start() {
        const c = spawn("nats-server", ["-c", conf], { stdio: ["ignore", "ignore", "pipe"] });
        child = c;
        let log = "";
        c.stderr?.setEncoding("utf8");
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`nats-server ${name} did not start:\n${log}`)),
            // A cluster's metadata leader took more than 20 s on a machine at load 35.
            60_000,
          );
          const want =
            size > 1
              ? /JetStream cluster new metadata leader|Self is new JetStream cluster metadata leader|new metadata leader/
              : /Server is ready/;
          c.stderr?.on("data", (chunk: string) => {
            if (log.length < 100_000) log += chunk;
            if (printed.length < 1_000_000) printed += chunk;
            if (want.test(log) || (size > 1 && /Server is ready/.test(log) && restarted)) {
              clearTimeout(timer);
              resolve();
            }
          });
          c.once("error", (e) => {
            clearTimeout(timer);
            reject(new Error(`nats-server ${name}: ${e.message} (is the nats-server package installed?)`));
          });
          c.once("exit", (code) => {
            clearTimeout(timer);
            reject(new Error(`nats-server ${name} exited with ${code}:\n${log}`));
          });
        });
      },
      async kill() {
        if (child !== undefined) await killChild(child);
      },
      async restart() {
        restarted = true;
        await node.start();
      },
      log: () => printed,
    };
    let restarted = false;
    return node;
  });
  try {
    await Promise.all(nodes.map((n) => n.start()));
  } catch (e) {
    await Promise.all(nodes.map((n) => n.kill()));
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    nodes,
    urls: nodes.map((n) => n.url).join(","),
    async stop() {
      await Promise.all(nodes.map((n) => n.kill()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
