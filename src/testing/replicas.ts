/**
 * A replicated Lookout on this machine, for the replication tests and bench: a 3-node nats-server
 * cluster on loopback and any number of real `lookout` server processes, each with its own data
 * directory, the same config document, `-nats <every node> -nats-replicas 3 -leader-election
 * -leader-lease 3s`. The set finds the leader (`GET /zones/workers` answers `leading` on each
 * server), kills a server with SIGKILL by its PID, restarts it on its data directory or adds one
 * with an empty one, reads each server's state through the real API (Connect JSON: ListStatus,
 * ListHistory, ListDowntimes, ListComments, every page) and waits until every server answers what
 * the leader answers. Every process's log is kept: `failed()` writes them all to a directory and
 * prints where, with the tail of each, and the command log's messages (REPLICAS_TEST_LOGS=dir keeps
 * them there, in a directory per set, whatever the outcome).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { type DescMessage, type MessageShape, toJson } from "@bufbuild/protobuf";
import { type Client, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { CommandService } from "../api/gen/svc/v1/command_service_pb.js";
import {
  CommentSchema,
  DowntimeSchema,
  HistoryEntrySchema,
  ObjectStatusSchema,
  QueryService,
} from "../api/gen/svc/v1/query_service_pb.js";
import { dumpCommandLog } from "./command-log-dump.js";
import { type NatsCluster, startNatsCluster } from "./peers/nats.js";
import { compareReplicas, type Json, type ReplicaState } from "./replica-compare.js";
import { type ServerProcess, startServer } from "./server-process.js";

export { compareReplicas, fieldOf, type Json, type ReplicaState } from "./replica-compare.js";

/** One server of the set, across its restarts. */
export interface Replica {
  readonly name: string;
  readonly dataDir: string;
  /** Whether its current process is alive. */
  readonly running: boolean;
  /** http://127.0.0.1:PORT of its current process (a restart listens on a new port). */
  readonly url: string;
  /** Its current process's PID. */
  readonly pid: number;
  /** What it logged, every start's, oldest first. */
  log(): string;
}

export interface ReplicaSetOptions {
  /** The config document (CUE) every server loads. */
  readonly config: string;
  /** `-nats-replicas` (default 3). */
  readonly natsReplicas?: number;
  /** `-leader-lease` (default "3s": failovers within a few seconds). */
  readonly leaderLease?: string;
  /** `-log-level` (default "info"). */
  readonly logLevel?: string;
  /** nats-server nodes (default 3). */
  readonly natsNodes?: number;
  /** More server flags. */
  readonly extraArgs?: readonly string[];
  /** Environment of the servers (default: PATH only). */
  readonly env?: NodeJS.ProcessEnv;
  /** Node flags of the servers (a benchmark passes the launcher's). */
  readonly nodeArgs?: readonly string[];
  /** How long a server may take to listen (default 60 s). */
  readonly startTimeoutMs?: number;
  /** Parent of the set's temporary directory (default the OS's). */
  readonly baseDir?: string;
}

export interface ReplicaSet {
  readonly nats: NatsCluster;
  /** The set's temporary directory (config, data directories). */
  readonly dir: string;
  /** Every server ever added, in order, running or not. */
  readonly replicas: readonly Replica[];
  /** The running ones. */
  running(): Replica[];
  /** Starts a new server with an empty data directory (named `s1`, `s2`, … unless `name`). */
  add(name?: string): Promise<Replica>;
  /** Starts `n` new servers one after the other (the first one started leads first). */
  addMany(n: number): Promise<Replica[]>;
  /** SIGKILL to its PID, as a crash would; resolves once it has exited. */
  kill(r: Replica): Promise<void>;
  /** Starts it again on its data directory (after kill). */
  restart(r: Replica): Promise<void>;
  /**
   * Waits until exactly one running server answers `leading: true` (and every other running one
   * `false`), twice in a row 200 ms apart; throws after `timeoutMs` (default 30 s) with what each said.
   */
  leader(timeoutMs?: number): Promise<Replica>;
  /** Whether each running server says it leads. */
  leading(): Promise<Map<Replica, boolean | string>>;
  /** Every process's log, nats nodes first. */
  logs(): { name: string; text: string }[];
  /**
   * Writes every log and the command log's messages (`command-log.txt`) to a directory (the set's
   * own under REPLICAS_TEST_LOGS, or a new temporary one, kept), prints its path and the last
   * `tailLines` lines of each to stderr; for a failed test.
   */
  failed(why: unknown, tailLines?: number): Promise<void>;
  /**
   * Kills every server and nats node and removes the directory (logs go to the set's own directory
   * under REPLICAS_TEST_LOGS first: one per set, so the sets of one run never overwrite each other's).
   */
  stop(): Promise<void>;
}

/** Starts the nats cluster (no Lookout server yet: `add` them). */
export async function startReplicaSet(o: ReplicaSetOptions): Promise<ReplicaSet> {
  const dir = mkdtempSync(join(o.baseDir ?? tmpdir(), "lookout-replicas-"));
  const configPath = join(dir, "lookout.cue");
  writeFileSync(configPath, o.config);
  let started: NatsCluster | undefined;
  // On a loaded machine a node now and then waits more than startNatsCluster's 60 s for the
  // cluster's metadata leader (seen once in 20 runs, two at once); a new cluster then starts.
  for (let attempt = 1; started === undefined; attempt++) {
    try {
      started = await startNatsCluster(o.natsNodes ?? 3);
    } catch (e) {
      if (attempt < 3) continue;
      rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }
  const nats = started;
  const replicas: (Replica & { proc?: ServerProcess; logs: (() => string)[] })[] = [];
  const args = (dataDir: string): string[] => [
    "-config",
    configPath,
    "-data-dir",
    dataDir,
    "-nats",
    nats.urls,
    "-nats-replicas",
    String(o.natsReplicas ?? 3),
    "-leader-election",
    "-leader-lease",
    o.leaderLease ?? "3s",
    "-log-level",
    o.logLevel ?? "info",
    ...(o.extraArgs ?? []),
  ];
  const launch = async (r: (typeof replicas)[number]): Promise<void> => {
    let proc: ServerProcess;
    try {
      proc = await startServer(args(r.dataDir), {
        timeoutMs: o.startTimeoutMs ?? 60_000,
        ...(o.env === undefined ? {} : { env: o.env }),
        ...(o.nodeArgs === undefined ? {} : { nodeArgs: o.nodeArgs }),
      });
    } catch (e) {
      // The start's output is in the error; keep it with the server's log.
      const text = String(e);
      r.logs.push(() => text);
      throw e;
    }
    r.proc = proc;
    r.logs.push(() => proc.stderr());
  };
  /** This set's own directory under REPLICAS_TEST_LOGS, when that is set. */
  const logsDir = (): string | undefined => {
    const root = process.env.REPLICAS_TEST_LOGS;
    return root === undefined ? undefined : join(root, basename(dir));
  };
  const writeLogs = (to: string): void => {
    mkdirSync(to, { recursive: true });
    for (const l of set.logs()) writeFileSync(join(to, `${l.name}.log`), l.text);
  };
  const set: ReplicaSet = {
    nats,
    dir,
    replicas,
    running: () => replicas.filter((r) => r.running),
    async add(name) {
      const n = name ?? `s${replicas.length + 1}`;
      const r = {
        name: n,
        dataDir: join(dir, n),
        logs: [] as (() => string)[],
        proc: undefined as ServerProcess | undefined,
        get running() {
          const c = r.proc?.child;
          return c !== undefined && c.exitCode === null && c.signalCode === null;
        },
        get url() {
          if (r.proc === undefined) throw new Error(`${n} never started`);
          return r.proc.url;
        },
        get pid() {
          return r.proc?.child.pid ?? -1;
        },
        log: () => r.logs.map((l) => l()).join(""),
      };
      replicas.push(r);
      await launch(r);
      return r;
    },
    async addMany(n) {
      const out: Replica[] = [];
      for (let i = 0; i < n; i++) out.push(await set.add());
      return out;
    },
    async kill(r) {
      const x = replicas.find((y) => y === r);
      await x?.proc?.kill();
    },
    async restart(r) {
      const x = replicas.find((y) => y === r);
      if (x === undefined) throw new Error(`${r.name} is not in the set`);
      if (x.running) throw new Error(`${r.name} is running`);
      await launch(x);
    },
    async leading() {
      const out = new Map<Replica, boolean | string>();
      await Promise.all(
        set.running().map(async (r) => {
          out.set(r, await leadingOf(r.url));
        }),
      );
      return out;
    },
    async leader(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let seen = "";
      let previous: Replica | undefined;
      for (;;) {
        const said = await set.leading();
        const leaders = [...said].filter(([, v]) => v === true).map(([r]) => r);
        const others = [...said].filter(([, v]) => v !== true && v !== false);
        seen = [...said].map(([r, v]) => `${r.name}: ${String(v)}`).join(", ");
        const one = leaders.length === 1 && others.length === 0 ? leaders[0] : undefined;
        if (one !== undefined && one === previous) return one;
        previous = one;
        if (Date.now() > deadline) throw new Error(`no single leader after ${timeoutMs} ms (${seen})`);
        await sleep(200);
      }
    },
    logs() {
      return [
        ...nats.nodes.map((n) => ({ name: `nats-${n.name}`, text: n.log() })),
        ...replicas.map((r) => ({ name: `lookout-${r.name}`, text: r.log() })),
      ];
    },
    async failed(why, tailLines = 40) {
      const to = logsDir() ?? mkdtempSync(join(tmpdir(), "lookout-replicas-logs-"));
      writeLogs(to);
      const dump = await dumpCommandLog(nats.urls).catch(
        (e: unknown) => `cannot read the command log: ${String(e)}\n`,
      );
      writeFileSync(join(to, "command-log.txt"), dump);
      const tails = set
        .logs()
        .map(
          (l) =>
            `--- ${l.name} (last ${tailLines} lines)\n${l.text.split("\n").slice(-tailLines).join("\n")}`,
        );
      console.error(`${String(why)}\nevery process's log is in ${to}\n${tails.join("\n")}`);
    },
    async stop() {
      const to = logsDir();
      if (to !== undefined) writeLogs(to);
      await Promise.all(replicas.map((r) => r.proc?.kill().catch(() => {})));
      await nats.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return set;
}

/**
 * Runs `body` with the set, prints every log if it throws (then rethrows), and stops the set
 * whatever happens.
 */
export async function withReplicaSet<T>(
  o: ReplicaSetOptions,
  body: (set: ReplicaSet) => Promise<T>,
): Promise<T> {
  const set = await startReplicaSet(o);
  try {
    return await body(set);
  } catch (e) {
    await set.failed(e);
    throw e;
  } finally {
    await set.stop();
  }
}

/** `leading` from GET /zones/workers, or why it could not be read. */
async function leadingOf(url: string): Promise<boolean | string> {
  try {
    const res = await fetch(`${url}/zones/workers`, { signal: AbortSignal.timeout(5_000) });
    if (!res.ok) return `HTTP ${res.status}`;
    const body = (await res.json()) as { leading?: unknown };
    return body.leading === true;
  } catch (e) {
    return String(e);
  }
}

/** The Command and Query services of one server over Connect JSON (HTTP/1.1), as curl users call them. */
export interface Api {
  readonly command: Client<typeof CommandService>;
  readonly query: Client<typeof QueryService>;
}

/** Real connect-es clients for the server at `url`. */
export function apiOf(url: string): Api {
  const transport = createConnectTransport({ baseUrl: url, httpVersion: "1.1" });
  return { command: createClient(CommandService, transport), query: createClient(QueryService, transport) };
}

const PAGE = 1000;

/** Every page of one list. */
async function allPages<T>(
  page: (token: string) => Promise<{ items: readonly T[]; next: string }>,
): Promise<T[]> {
  const out: T[] = [];
  let token = "";
  for (let i = 0; i < 10_000; i++) {
    const p = await page(token);
    out.push(...p.items);
    if (p.next === "") return out;
    token = p.next;
  }
  throw new Error("more than 10,000 pages");
}

const json = <D extends DescMessage>(schema: D, m: MessageShape<D>): Json =>
  toJson(schema, m, { alwaysEmitImplicit: true }) as Json;

/**
 * One server's state through its API: ListStatus, ListHistory, ListDowntimes and ListComments,
 * every page, as proto JSON with every field written. Each call may take `timeoutMs` (default 20 s).
 */
export async function readState(url: string, timeoutMs = 20_000): Promise<ReplicaState> {
  const { query } = apiOf(url);
  const opts = { timeoutMs };
  const [status, history, downtimes, comments] = await Promise.all([
    allPages(async (pageToken) => {
      const r = await query.listStatus({ pageSize: PAGE, pageToken }, opts);
      return { items: r.statuses.map((s) => json(ObjectStatusSchema, s)), next: r.nextPageToken };
    }),
    allPages(async (pageToken) => {
      const r = await query.listHistory({ pageSize: PAGE, pageToken }, opts);
      return { items: r.entries.map((s) => json(HistoryEntrySchema, s)), next: r.nextPageToken };
    }),
    allPages(async (pageToken) => {
      const r = await query.listDowntimes({ pageSize: PAGE, pageToken }, opts);
      return { items: r.downtimes.map((s) => json(DowntimeSchema, s)), next: r.nextPageToken };
    }),
    allPages(async (pageToken) => {
      const r = await query.listComments({ pageSize: PAGE, pageToken }, opts);
      return { items: r.comments.map((s) => json(CommentSchema, s)), next: r.nextPageToken };
    }),
  ]);
  return { status, history, downtimes, comments };
}

/** What `converge` found. */
export interface Convergence {
  /** Whether every server answered what the reference answered. */
  readonly equal: boolean;
  /** From the call until the servers were first seen equal (or until it gave up). */
  readonly ms: number;
  /** The reference's state when last read. */
  readonly reference: ReplicaState;
  /** The first difference last seen (`server: difference`), when not equal. */
  readonly difference?: string;
}

/**
 * Reads `reference`'s state and every other server's until they are all equal (compareReplicas),
 * every `everyMs` (default 250), for at most `timeoutMs` (default 10 s). Never throws for a
 * difference (the caller asserts on `equal`); a server that does not answer counts as different.
 */
export async function converge(
  reference: Replica,
  others: readonly Replica[],
  o: { timeoutMs?: number; everyMs?: number } = {},
): Promise<Convergence> {
  const t0 = performance.now();
  const deadline = t0 + (o.timeoutMs ?? 10_000);
  for (;;) {
    let difference: string | undefined;
    let ref: ReplicaState = { status: [], history: [], downtimes: [], comments: [] };
    try {
      ref = await readState(reference.url);
      const states = await Promise.all(
        others.map(async (r) => [r, await readState(r.url).catch((e: unknown) => String(e))] as const),
      );
      for (const [r, s] of states) {
        difference =
          typeof s === "string"
            ? `${r.name} did not answer: ${s}`
            : compareReplicas(reference.name, ref, r.name, s);
        if (difference !== undefined) break;
      }
    } catch (e) {
      difference = `${reference.name} did not answer: ${String(e)}`;
    }
    const ms = performance.now() - t0;
    if (difference === undefined) return { equal: true, ms, reference: ref };
    if (performance.now() > deadline) return { equal: false, ms, reference: ref, difference };
    await sleep(o.everyMs ?? 250);
  }
}

/** Polls `f` every 100 ms until it answers true; throws `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  f: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * A config document of `hosts` passive hosts `h0`, `h1`, … with `services` passive services `s0`,
 * `s1`, … each (and `extra` lines), each check with a freshness threshold far away and
 * `max_attempts: 1` (each result is HARD at once, a state change is a history entry) unless
 * `softHosts` names the host: its services take 3 attempts, so results go SOFT first.
 */
export function passiveFleet(
  hosts: number,
  services: number,
  extra = "",
  softHosts: ReadonlySet<string> = new Set(),
): string {
  const check = (attempts: number) =>
    `{type: "passive", freshness_threshold: "24h", max_attempts: ${attempts}}`;
  const lines = ["hosts: {"];
  for (let h = 0; h < hosts; h++) {
    lines.push(`\th${h}: {address: "127.0.0.1", check: ${check(1)}, services: {`);
    const attempts = softHosts.has(`h${h}`) ? 3 : 1;
    for (let s = 0; s < services; s++) lines.push(`\t\ts${s}: check: ${check(attempts)}`);
    lines.push("\t}}");
  }
  lines.push("}", extra, "");
  return lines.join("\n");
}

/**
 * The object's status on `r` as proto JSON (every field written), or undefined when the server
 * does not answer or does not know it. `o.service` absent: the host.
 */
export async function statusOf(
  r: Replica,
  o: { readonly host: string; readonly service?: string },
): Promise<Record<string, Json> | undefined> {
  try {
    const res = await apiOf(r.url).query.listStatus(
      { host: o.host, ...(o.service === undefined ? {} : { service: o.service }) },
      { timeoutMs: 5_000 },
    );
    const s = res.statuses.find((x) => x.service === o.service);
    return s === undefined ? undefined : (json(ObjectStatusSchema, s) as Record<string, Json>);
  } catch {
    return undefined;
  }
}
