import assert from "node:assert/strict";
import { test } from "node:test";
import { type FlagSpec, formatUsage, parseFlags } from "./flags.js";
import { decodeServerOptions, parseListen, SERVER_FLAGS, type ServerOptions } from "./server-flags.js";

const SPECS: FlagSpec[] = [
  { name: "listen", kind: "string", default: "127.0.0.1:8080", usage: "addr" },
  { name: "read-only", kind: "bool", default: false, usage: "ro" },
  { name: "api-token", kind: "string", default: "", usage: "tok", env: "TOK" },
];

test("parseFlags accepts Go's spellings", () => {
  const cases: {
    argv: string[];
    env?: Record<string, string>;
    want: Record<string, unknown>;
    rest?: string[];
  }[] = [
    { argv: [], want: { listen: "127.0.0.1:8080", "read-only": false, "api-token": "" } },
    { argv: ["-listen", ":9"], want: { listen: ":9" } },
    { argv: ["-listen=:9"], want: { listen: ":9" } },
    { argv: ["--listen", ":9"], want: { listen: ":9" } },
    { argv: ["--listen=:9"], want: { listen: ":9" } },
    { argv: ["-read-only"], want: { "read-only": true } },
    { argv: ["-read-only=false"], want: { "read-only": false } },
    { argv: ["-read-only=1"], want: { "read-only": true } },
    { argv: ["-read-only", "x"], want: { "read-only": true }, rest: ["x"] },
    { argv: ["--", "-listen"], want: { listen: "127.0.0.1:8080" }, rest: ["-listen"] },
    { argv: [], env: { TOK: "t" }, want: { "api-token": "t" } },
    { argv: ["-api-token", "flag"], env: { TOK: "env" }, want: { "api-token": "flag" } },
    { argv: ["-listen", "-read-only"], want: { listen: "-read-only" } },
  ];
  for (const c of cases) {
    const r = parseFlags(SPECS, c.argv, c.env ?? {});
    assert.ok(r.ok, c.argv.join(" "));
    for (const [k, v] of Object.entries(c.want)) assert.equal(r.values[k], v, `${c.argv.join(" ")}: ${k}`);
    assert.deepEqual(r.rest, c.rest ?? [], c.argv.join(" "));
  }
});

test("parseFlags rejects what Go rejects", () => {
  const cases: { argv: string[]; error: RegExp; help?: boolean }[] = [
    { argv: ["-x"], error: /not defined: -x/ },
    { argv: ["-listen"], error: /needs an argument/ },
    { argv: ["---listen"], error: /bad flag syntax/ },
    { argv: ["-=x"], error: /bad flag syntax/ },
    { argv: ["-read-only=yes"], error: /invalid boolean/ },
    { argv: ["-h"], error: /^$/, help: true },
    { argv: ["--help"], error: /^$/, help: true },
  ];
  for (const c of cases) {
    const r = parseFlags(SPECS, c.argv);
    assert.equal(r.ok, false, c.argv.join(" "));
    if (!r.ok) {
      assert.match(r.error, c.error);
      assert.equal(r.help, c.help ?? false);
    }
  }
});

test("formatUsage lists flags sorted, with defaults and env", () => {
  const u = formatUsage("lookout", SPECS);
  assert.equal(
    u,
    [
      "Usage of lookout:",
      "  -api-token string",
      "    \ttok (env TOK)",
      "  -listen string",
      '    \taddr (default "127.0.0.1:8080")',
      "  -read-only",
      "    \tro",
      "",
    ].join("\n"),
  );
});

test("parseListen", () => {
  const cases: [string, { host: string; port: number } | undefined][] = [
    ["127.0.0.1:8080", { host: "127.0.0.1", port: 8080 }],
    [":9090", { host: "", port: 9090 }],
    ["[::1]:0", { host: "::1", port: 0 }],
    ["localhost:1", { host: "localhost", port: 1 }],
    ["8080", undefined],
    ["::1:80", undefined],
    ["h:65536", undefined],
    ["h:", undefined],
  ];
  for (const [addr, want] of cases) assert.deepEqual(parseListen(addr), want, addr);
});

test("decodeServerOptions: the zone flags, -writer-priority and -snapshot-after-replay", () => {
  const cases: { argv: string[]; want?: Partial<ServerOptions>; error?: RegExp }[] = [
    {
      argv: [],
      want: {
        nats: "",
        localZones: ["default"],
        natsReplicas: 1,
        leaderElection: false,
        leaderLeaseMs: 10_000,
        noWorkerGraceMs: 30_000,
      },
    },
    {
      argv: [
        "-nats",
        "nats://a:4222,nats://b:4222",
        "-local-zones",
        "default, dc1,",
        "-nats-replicas",
        "3",
        "-leader-election",
        "-leader-lease",
        "6s",
        "-no-worker-grace",
        "1m",
      ],
      want: {
        nats: "nats://a:4222,nats://b:4222",
        localZones: ["default", "dc1"],
        natsReplicas: 3,
        leaderElection: true,
        leaderLeaseMs: 6_000,
        noWorkerGraceMs: 60_000,
      },
    },
    { argv: ["-nats-replicas", "2"], error: /-nats-replicas: want 1, 3 or 5/ },
    { argv: ["-leader-election"], error: /-leader-election needs -nats/ },
    { argv: ["-nats", "nats://a", "-leader-lease", "500ms"], error: /-leader-lease/ },
    { argv: ["-no-worker-grace", "soon"], error: /-no-worker-grace/ },
    { argv: [], want: { writerPriority: "idle" } },
    { argv: ["-writer-priority", "auto"], want: { writerPriority: "auto" } },
    { argv: ["-writer-priority", "nice"], want: { writerPriority: "nice" } },
    { argv: ["-writer-priority", "idle"], want: { writerPriority: "idle" } },
    { argv: ["-writer-priority", "normal"], want: { writerPriority: "normal" } },
    { argv: ["-writer-priority", "realtime"], error: /-writer-priority: want auto, idle, nice or normal/ },
    { argv: [], want: { snapshotAfterReplayEvents: 100_000 } },
    { argv: ["-snapshot-after-replay", "0"], want: { snapshotAfterReplayEvents: 0 } },
    { argv: ["-snapshot-after-replay", "-1"], error: /-snapshot-after-replay: want a number of events/ },
    { argv: ["-snapshot-after-replay", "1e5"], error: /-snapshot-after-replay: want a number of events/ },
    { argv: [], want: { snapshotEveryMs: 300_000 } },
    { argv: ["-snapshot-every", "2m"], want: { snapshotEveryMs: 120_000 } },
    { argv: ["-snapshot-every", "0s"], error: /-snapshot-every: want a duration of at least 1s/ },
    { argv: ["-snapshot-every", "soon"], error: /-snapshot-every: want a duration of at least 1s/ },
    { argv: [], want: { snapshotKeepEveryMs: 240_000 } },
    { argv: ["-snapshot-keep-every", "15m"], want: { snapshotKeepEveryMs: 900_000 } },
    { argv: ["-snapshot-keep-every", "0s"], want: { snapshotKeepEveryMs: 0 } },
    { argv: ["-snapshot-keep-every", "often"], error: /-snapshot-keep-every: want a duration/ },
  ];
  for (const c of cases) {
    const parsed = parseFlags(SERVER_FLAGS, c.argv);
    assert.ok(parsed.ok, c.argv.join(" "));
    const d = decodeServerOptions(parsed.values);
    if (c.error !== undefined) {
      assert.ok(!d.ok && c.error.test(d.error), `${c.argv.join(" ")}: ${d.ok ? "accepted" : d.error}`);
      continue;
    }
    assert.ok(d.ok, c.argv.join(" "));
    for (const [k, v] of Object.entries(c.want ?? {}))
      assert.deepEqual(d.options[k as keyof ServerOptions], v, k);
  }
});
