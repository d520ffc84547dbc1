import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import {
  ProcessCheckResultRequestSchema,
  ProcessCheckResultResponseSchema,
} from "../api/gen/svc/v1/command_service_pb.js";
import { bufCurl, grpcUnary } from "../testing/clients.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";

// A passive host result's status is the host's state, as Nagios' PROCESS_HOST_CHECK_RESULT and
// Icinga 2's process-check-result read it (0 UP, 1 DOWN, 2 UNREACHABLE in Nagios), on every way in:
// the command file and the API in each protocol and path. Active host checks keep the plugin's
// reading (docs/states.md, "Host results").

type Via = "command file" | "Connect JSON" | "Connect JSON batch" | "gRPC" | "gRPC-Web";
const VIAS: readonly Via[] = ["command file", "Connect JSON", "Connect JSON batch", "gRPC", "gRPC-Web"];
/** The state each passive host status stands for (no parents). */
const PASSIVE: readonly [status: number, state: string][] = [
  [0, "STATE_UP"],
  [1, "STATE_DOWN"],
  [2, "STATE_DOWN"],
  [3, "STATE_DOWN"],
];
const PASSIVE_CHECK = `check: {type: "passive", freshness_threshold: "1h"}`;
const hostName = (via: Via, status: number) => `${via.replaceAll(" ", "-").toLowerCase()}-${status}`;

let dir: string;
let fifo: string;
let srv: ServerProcess;
let open: Server;
let closedPort: number;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "lookout-host-states-"));
  fifo = join(dir, "lookout.cmd");
  open = createServer((s) => s.destroy());
  await new Promise<void>((r) => open.listen(0, "127.0.0.1", r));
  const openPort = (open.address() as { port: number }).port;
  // A loopback port nothing listens on: taken, then let go.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  const hosts = VIAS.flatMap((via) =>
    PASSIVE.map(([s]) => `\t"${hostName(via, s)}": {address: "127.0.0.1", ${PASSIVE_CHECK}}`),
  );
  hosts.push(
    `\tgw: {address: "127.0.0.1", ${PASSIVE_CHECK}}`,
    `\t"behind-extcmd": {address: "127.0.0.1", parents: ["gw"], ${PASSIVE_CHECK}}`,
    `\t"behind-api": {address: "127.0.0.1", parents: ["gw"], ${PASSIVE_CHECK}}`,
    `\t"active-down": {address: "127.0.0.1", check: {type: "tcp", address: "127.0.0.1:${closedPort}", check_interval: "1s", max_attempts: 1}}`,
    `\t"active-up": {address: "127.0.0.1", check: {type: "tcp", address: "127.0.0.1:${openPort}", check_interval: "1s"}}`,
  );
  await writeFile(join(dir, "c.cue"), `hosts: {\n${hosts.join("\n")}\n}\n`);
  srv = await startServer([
    "-config",
    join(dir, "c.cue"),
    "-command-file",
    fifo,
    "-data-dir",
    join(dir, "data"),
  ]);
});
after(async () => {
  assert.equal(await srv.stop(), 0);
  await new Promise((r) => open.close(r));
  await rm(dir, { recursive: true, force: true });
});

async function post(path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${srv.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text);
}

async function send(via: Via, host: string, exitStatus: number, output: string): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  switch (via) {
    case "command file":
      await writeFile(fifo, `[${now}] PROCESS_HOST_CHECK_RESULT;${host};${exitStatus};${output}\n`, {
        flag: "a",
      });
      return;
    case "Connect JSON":
      await post("/svc.v1.CommandService/ProcessCheckResult", { host, exitStatus, output });
      return;
    case "Connect JSON batch":
      await post("/svc.v1.CommandService/ProcessCheckResults", { results: [{ host, exitStatus, output }] });
      return;
    case "gRPC":
      await grpcUnary(
        `127.0.0.1:${srv.port}`,
        "/svc.v1.CommandService/ProcessCheckResult",
        ProcessCheckResultRequestSchema,
        ProcessCheckResultResponseSchema,
        create(ProcessCheckResultRequestSchema, { host, exitStatus, output }),
      );
      return;
    case "gRPC-Web": {
      // Through the Connect router (the fast paths serve gRPC and Connect only).
      const r = await bufCurl([
        "--protocol",
        "grpcweb",
        "-d",
        JSON.stringify({ results: [{ host, exitStatus, output }] }),
        `${srv.url}/svc.v1.CommandService/ProcessCheckResults`,
      ]);
      assert.equal(r.code, 0, r.stderr);
      return;
    }
    default: {
      const never: never = via;
      throw new Error(String(never));
    }
  }
}

async function hostState(host: string): Promise<{ state: string; output: string } | undefined> {
  const r = (await post("/svc.v1.QueryService/ListStatus", { host })) as {
    statuses?: { host: string; service?: string; state: string; output: string }[];
  };
  return r.statuses?.find((s) => s.service === undefined);
}

async function until(host: string, ok: (s: { state: string; output: string } | undefined) => boolean) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const s = await hostState(host);
    if (ok(s)) return s;
    if (Date.now() > deadline) assert.fail(`${host}: still ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("host results", () => {
  test("a passive host status is the host's state: 0 UP, 1 DOWN, 2 and 3 DOWN", async () => {
    for (const via of VIAS) for (const [s] of PASSIVE) await send(via, hostName(via, s), s, `sent ${s}`);
    const wrong: string[] = [];
    for (const via of VIAS) {
      for (const [s, want] of PASSIVE) {
        const got = await until(hostName(via, s), (st) => st?.output === `sent ${s}`);
        if (got?.state !== want) wrong.push(`${via} ${s}: ${got?.state}, want ${want}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  test("DOWN or UNREACHABLE is decided by the parents", async () => {
    await send("command file", "gw", 1, "gw down");
    await until("gw", (s) => s?.state === "STATE_DOWN");
    await send("command file", "behind-extcmd", 1, "behind down");
    await send("Connect JSON", "behind-api", 2, "behind unreachable");
    await until("behind-extcmd", (s) => s?.state === "STATE_UNREACHABLE");
    await until("behind-api", (s) => s?.state === "STATE_UNREACHABLE");
  });

  test("an active host check keeps the plugin's reading: CRITICAL is DOWN, OK is UP", async () => {
    await until("active-down", (s) => s?.state === "STATE_DOWN");
    await until("active-up", (s) => s?.state === "STATE_UP");
  });
});
