import { isAllowedHostEntry } from "../api/index.js";
import { trustedProxyProblem } from "../auth/index.js";
import { parseDurationMs } from "../config/duration.js";
import type { WriterOptions } from "../store/index.js";

/** The values of -writer-priority (WriterOptions.priority). */
const WRITER_POLICIES: readonly WriterOptions["priority"][] = ["auto", "idle", "nice", "normal"];

import type { NatsAuth } from "../zones/index.js";
import type { FlagSpec, FlagValues } from "./flags.js";
import { isLogLevel, type LogLevel } from "./logger.js";
import { decodeNatsAuth, NATS_AUTH_FLAGS } from "./nats-flags.js";
import { decodeNotifyOptions, NOTIFY_FLAGS, type NotifyOptions } from "./notify-flags.js";

/** The server's flags: the reference's, plus where data lives and how much to log. */
export const SERVER_FLAGS: readonly FlagSpec[] = [
  {
    name: "listen",
    kind: "string",
    default: "127.0.0.1:8080",
    usage: "address serving the dashboard, /metrics and the API (Connect, gRPC, gRPC-Web)",
  },
  { name: "config", kind: "string", default: "", usage: "path of the served CUE configuration document" },
  {
    name: "auth-config",
    kind: "string",
    default: "",
    usage: "path of the identities document; enables identity checks and the AdminService",
  },
  {
    name: "read-only",
    kind: "bool",
    default: false,
    usage: "unmount the write surfaces (CommandService, AdminService)",
  },
  {
    name: "api-token",
    kind: "string",
    default: "",
    env: "LOOKOUT_API_TOKEN",
    usage: "bearer token required by CommandService writes; empty means open",
  },
  {
    name: "allowed-hosts",
    kind: "string",
    default: "",
    usage:
      "comma-separated host names and addresses served besides loopback ones while writes need no credentials (* for any); when set, checked always",
  },
  {
    name: "trusted-proxies",
    kind: "string",
    default: "",
    usage:
      "comma-separated CIDRs of reverse proxies whose X-Forwarded-For names the client (for the login throttle)",
  },
  {
    name: "session-secret",
    kind: "string",
    default: "",
    env: "LOOKOUT_SESSION_SECRET",
    usage:
      "secret behind dashboard sessions, 32 bytes or more (openssl rand -base64 48); none: a random one, sessions end with the process",
  },
  {
    name: "config-profile",
    kind: "string",
    default: "",
    usage: `"demo" narrows what the config validator accepts (no processes, no local files)`,
  },
  {
    name: "command-file",
    kind: "string",
    default: "",
    usage: "path of the external command file: a named pipe created and read for [epoch] COMMAND;args lines",
  },
  { name: "data-dir", kind: "string", default: "data", usage: "directory of the embedded event log" },
  {
    name: "event-retention",
    kind: "string",
    default: "48h",
    usage: "keep events this long, and longer while a sink or the notifier has not read them (0s: keep all)",
  },
  {
    name: "writer-priority",
    kind: "string",
    default: "idle",
    usage:
      "the store writer thread's CPU policy: auto (the process's priority, SCHED_IDLE once it runs flat out), idle (SCHED_IDLE: reads first), nice (nice 10: writes keep a share of a saturated machine) or normal (the process's priority)",
  },
  {
    name: "snapshot-after-replay",
    kind: "string",
    default: "100000",
    usage:
      "after a start that replayed at least this many events logged since the last snapshot, snapshot before serving, so a crash loop cannot make each start slower (0: never)",
  },
  {
    name: "snapshot-every",
    kind: "string",
    default: "5m",
    usage:
      "snapshot after this much time in which something was applied (and every 2,000,000 events): shorter bounds a restart's replay and ListStatus at's rebuilds tighter, at a snapshot's cost in the writer each time",
  },
  {
    name: "snapshot-keep-every",
    kind: "string",
    default: "4m",
    usage:
      "keep snapshots this far apart in the log's time, for as long as the events after them are kept: where ListStatus at a past moment starts from (0s: only the newest two)",
  },
  { name: "log-level", kind: "string", default: "info", usage: "debug, info, warn or error" },
  ...NOTIFY_FLAGS,
  {
    name: "nats",
    kind: "string",
    default: "",
    usage: "NATS server URL(s), comma-separated: run other zones' checks on workers (docs/zones.md)",
  },
  ...NATS_AUTH_FLAGS,
  {
    name: "local-zones",
    kind: "string",
    default: "default",
    usage: "comma-separated zones whose checks this server runs itself (with -nats)",
  },
  {
    name: "nats-replicas",
    kind: "string",
    default: "1",
    usage: "JetStream replicas of Lookout's streams: 1, 3 or 5",
  },
  {
    name: "leader-election",
    kind: "bool",
    default: false,
    usage:
      "with -nats: every server a replica of one command log on JetStream; only the lease holder schedules, ingests, notifies and feeds sinks (docs/replication.md)",
  },
  {
    name: "no-worker-grace",
    kind: "string",
    default: "30s",
    usage: "with -nats: after this long without a live worker, a zone's objects go UNKNOWN",
  },
  {
    name: "leader-lease",
    kind: "string",
    default: "10s",
    usage: "how long the leader lease outlives the leader's last renewal (with -leader-election)",
  },
];

/** The server's settings, decoded from its flags. */
export interface ServerOptions {
  readonly listen: string;
  readonly config: string;
  readonly authConfig: string;
  readonly readOnly: boolean;
  readonly apiToken: string;
  readonly sessionSecret: string;
  /**
   * -allowed-hosts: the Host names served besides loopback names and addresses (docs/api.md, "The
   * Host check"); absent or empty: none, and the check is in force only while writes are open.
   */
  readonly allowedHosts?: readonly string[];
  /** -trusted-proxies: CIDRs whose X-Forwarded-For is believed (docs/auth.md); absent: none. */
  readonly trustedProxies?: readonly string[];
  readonly configProfile: "" | "demo";
  /** -command-file; empty: none. */
  readonly commandFile: string;
  readonly dataDir: string;
  /** Ms; 0 keeps every event. */
  readonly eventRetentionMs: number;
  /**
   * The writer thread's CPU policy (docs/storage.md, Latency); absent: `idle`. `nice` is the lever
   * for a machine saturated by other work, where SCHED_IDLE leaves acknowledgements waiting.
   */
  readonly writerPriority?: WriterOptions["priority"];
  /** WriterOptions.snapshotAfterReplayEvents; absent: its default (100,000). */
  readonly snapshotAfterReplayEvents?: number;
  /** WriterOptions.snapshotEveryMs; absent: its default (5 minutes). */
  readonly snapshotEveryMs?: number;
  /** WriterOptions.snapshotKeepEveryMs; absent: its default (4 minutes). */
  readonly snapshotKeepEveryMs?: number;
  readonly logLevel: LogLevel;
  /** The notifier's settings; defaults when absent (tests that build options by hand). */
  readonly notify?: NotifyOptions;
  /** NATS URLs; "" or absent: every zone runs here (docs/zones.md). */
  readonly nats?: string;
  /** How to authenticate to NATS; absent: as the URLs say. */
  readonly natsAuth?: NatsAuth;
  /** Zones run here when `nats` is set; absent: `default`. */
  readonly localZones?: readonly string[];
  /** Absent: 1. */
  readonly natsReplicas?: number;
  readonly leaderElection?: boolean;
  /** Ms; absent: 10 s. */
  readonly leaderLeaseMs?: number;
  /** Ms; absent: 30 s. */
  readonly noWorkerGraceMs?: number;
}

/** Checks flag values that have a closed set or a shape. */
export function decodeServerOptions(
  v: FlagValues,
): { ok: true; options: ServerOptions } | { ok: false; error: string } {
  const s = (k: string) => String(v[k] ?? "");
  const profile = s("config-profile");
  if (profile !== "" && profile !== "demo") {
    return { ok: false, error: `invalid value "${profile}" for -config-profile: only "demo" is defined` };
  }
  const level = s("log-level");
  if (!isLogLevel(level)) return { ok: false, error: `invalid value "${level}" for -log-level` };
  const retention = parseDurationMs(s("event-retention"));
  if (retention === undefined || retention < 0) {
    return {
      ok: false,
      error: `invalid value "${s("event-retention")}" for -event-retention: want a duration like 48h`,
    };
  }
  const writerPriority = WRITER_POLICIES.find((p) => p === s("writer-priority"));
  if (writerPriority === undefined) {
    return {
      ok: false,
      error: `invalid value "${s("writer-priority")}" for -writer-priority: want auto, idle, nice or normal`,
    };
  }
  const snapshotAfterReplay = Number(s("snapshot-after-replay"));
  if (!/^\d+$/.test(s("snapshot-after-replay")) || !Number.isSafeInteger(snapshotAfterReplay)) {
    return {
      ok: false,
      error: `invalid value "${s("snapshot-after-replay")}" for -snapshot-after-replay: want a number of events (0: never)`,
    };
  }
  const every = parseDurationMs(s("snapshot-every"));
  if (every === undefined || every < 1000) {
    return {
      ok: false,
      error: `invalid value "${s("snapshot-every")}" for -snapshot-every: want a duration of at least 1s, like 5m`,
    };
  }
  const keepEvery = parseDurationMs(s("snapshot-keep-every"));
  if (keepEvery === undefined || keepEvery < 0) {
    return {
      ok: false,
      error: `invalid value "${s("snapshot-keep-every")}" for -snapshot-keep-every: want a duration like 4m (0s: only the newest two)`,
    };
  }
  const notify = decodeNotifyOptions(v);
  if (!notify.ok) return notify;
  if (parseListen(s("listen")) === undefined) {
    return { ok: false, error: `invalid value "${s("listen")}" for -listen: want host:port` };
  }
  if (s("command-file") !== "" && v["read-only"] === true) {
    return { ok: false, error: "-command-file is a write surface: it cannot be used with -read-only" };
  }
  const replicas = Number(s("nats-replicas"));
  if (replicas !== 1 && replicas !== 3 && replicas !== 5) {
    return { ok: false, error: `invalid value "${s("nats-replicas")}" for -nats-replicas: want 1, 3 or 5` };
  }
  const localZones = s("local-zones")
    .split(",")
    .map((z) => z.trim())
    .filter((z) => z !== "");
  if (v["leader-election"] === true && s("nats") === "") {
    return { ok: false, error: "-leader-election needs -nats" };
  }
  const natsAuth = decodeNatsAuth(v, process.env);
  if (!natsAuth.ok) return natsAuth;
  const allowedHosts = s("allowed-hosts")
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== "");
  const badHost = allowedHosts.find((h) => !isAllowedHostEntry(h));
  if (badHost !== undefined) {
    return {
      ok: false,
      error: `invalid value "${badHost}" in -allowed-hosts: want host names (or addresses) without scheme or port, comma-separated, or *`,
    };
  }
  const trustedProxies = s("trusted-proxies")
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== "");
  for (const p of trustedProxies) {
    const problem = trustedProxyProblem(p);
    if (problem !== undefined) return { ok: false, error: problem };
  }
  const lease = parseDurationMs(s("leader-lease"));
  if (lease === undefined || lease < 1_000) {
    return {
      ok: false,
      error: `invalid value "${s("leader-lease")}" for -leader-lease: want a duration of 1s or more`,
    };
  }
  const grace = parseDurationMs(s("no-worker-grace"));
  if (grace === undefined || grace < 0) {
    return {
      ok: false,
      error: `invalid value "${s("no-worker-grace")}" for -no-worker-grace: want a duration`,
    };
  }
  return {
    ok: true,
    options: {
      listen: s("listen"),
      config: s("config"),
      authConfig: s("auth-config"),
      readOnly: v["read-only"] === true,
      apiToken: s("api-token"),
      sessionSecret: s("session-secret"),
      allowedHosts,
      trustedProxies,
      configProfile: profile,
      commandFile: s("command-file"),
      dataDir: s("data-dir"),
      eventRetentionMs: retention,
      writerPriority,
      snapshotAfterReplayEvents: snapshotAfterReplay,
      snapshotEveryMs: every,
      snapshotKeepEveryMs: keepEvery,
      logLevel: level,
      notify: notify.options,
      nats: s("nats"),
      natsAuth: natsAuth.auth,
      localZones,
      natsReplicas: replicas,
      leaderElection: v["leader-election"] === true,
      leaderLeaseMs: lease,
      noWorkerGraceMs: grace,
    },
  };
}

/** Splits `host:port`, `[v6]:port` or `:port` (all interfaces, as in Go). */
export function parseListen(addr: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(addr);
  if (m === null) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  return { host: m[1] ?? m[2] ?? "", port };
}
