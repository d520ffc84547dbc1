import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { join } from "node:path";
import { type FleetSpec, hostName, icingaFleet } from "../fleet.js";
import { sleep, startDaemon } from "../procs.js";
import type { Peer, Running } from "./peer.js";

/** Every path Icinga 2 writes to, inside the run's own directory (nothing under /etc or /var). */
function constants(dir: string): string[] {
  const d = (k: string, v: string) => `-D${k}=${join(dir, v)}`;
  return [
    d("ConfigDir", "etc"),
    d("DataDir", "lib"),
    d("LogDir", "log"),
    d("CacheDir", "cache"),
    d("SpoolDir", "spool"),
    d("InitRunDir", "run"),
    d("PidPath", "run/icinga2.pid"),
    d("VarsPath", "cache/icinga2.vars"),
    d("ObjectsPath", "cache/icinga2.debug"),
    "-DRunAsUser=root",
    "-DRunAsGroup=root",
  ];
}

let nextPort = 15_665;

/** Writes the main file, the fleet, and (for the daemon) a CA and node certificate for the API. */
function writeConfig(dir: string, fleet: FleetSpec, apiPort: number | undefined): string {
  for (const sub of ["etc", "lib/certs", "log", "cache", "spool", "run"])
    mkdirSync(join(dir, sub), { recursive: true });
  const main = [
    "include <itl>",
    "include <plugins>",
    `const PluginDir = "/usr/lib/nagios/plugins"`,
    `const NodeName = "localhost"`,
    `const ZoneName = "master"`,
    "object Endpoint NodeName { }",
    "object Zone ZoneName { endpoints = [ NodeName ] }",
    'object CheckerComponent "checker" { }',
    `include "fleet.conf"`,
  ];
  if (apiPort !== undefined) {
    const certs = join(dir, "lib/certs");
    const sh = (cmd: string) => execFileSync("/bin/sh", ["-c", cmd], { cwd: certs, stdio: "ignore" });
    sh(`openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj "/CN=Bench CA"`);
    sh(`openssl req -newkey rsa:2048 -nodes -keyout localhost.key -out localhost.csr -subj "/CN=localhost"`);
    sh(
      "openssl x509 -req -in localhost.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out localhost.crt -days 2",
    );
    main.push(
      `object ApiListener "api" { bind_host = "127.0.0.1"; bind_port = ${apiPort}; accept_commands = true; accept_config = false }`,
      `object ApiUser "bench" { password = "bench"; permissions = [ "*" ] }`,
    );
  }
  writeFileSync(join(dir, "etc/icinga2.conf"), `${main.join("\n")}\n`);
  writeFileSync(join(dir, "etc/fleet.conf"), icingaFleet(fleet));
  return join(dir, "etc/icinga2.conf");
}

/** HTTPS keep-alive agent for the Icinga 2 API (self-signed CA of the run). */
export function icingaAgent(sockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: sockets, rejectUnauthorized: false });
}

/** One API call; resolves to the HTTP status and the body. */
export function icingaCall(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        agent,
        auth: "bench:bench",
        headers: {
          Accept: "application/json",
          ...(data === undefined ? {} : { "Content-Type": "application/json" }),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

export const icinga2: Peer = {
  name: "icinga2",
  version() {
    return /version: (\S+)\)/.exec(execFileSync("icinga2", ["--version"], { encoding: "utf8" }))?.[1] ?? "?";
  },
  addService(dir, fleet, plugin) {
    const extra = [
      `object CheckCommand "bench-new" { command = [ "${plugin}" ] }`,
      `object Service "new" { host_name = "${hostName(0)}"; check_command = "bench-new"; check_interval = 10s; retry_interval = 10s; enable_active_checks = true }`,
    ].join("\n");
    writeFileSync(join(dir, "etc/fleet.conf"), icingaFleet(fleet, extra));
  },
  validate(dir, fleet) {
    const conf = writeConfig(dir, fleet, undefined);
    return { cmd: "icinga2", args: ["daemon", "-C", "-c", conf, ...constants(dir)] };
  },
  async start(dir, fleet): Promise<Running> {
    const port = nextPort++;
    const conf = writeConfig(dir, fleet, port);
    const daemon = startDaemon("icinga2", ["daemon", "-c", conf, ...constants(dir)]);
    const agent = icingaAgent(4);
    for (let i = 0; ; i++) {
      try {
        const r = await icingaCall(agent, port, "GET", "/v1/status/CIB");
        if (r.status === 200) break;
      } catch {
        // not yet listening
      }
      if (i > 3000 || daemon.child.exitCode !== null)
        throw new Error(`icinga2 did not start: ${daemon.output()}`);
      await sleep(100);
    }
    const cib = async () =>
      (
        JSON.parse((await icingaCall(agent, port, "GET", "/v1/status/CIB")).body) as {
          results: { status: Record<string, number> }[];
        }
      ).results[0]?.status ?? {};
    return {
      daemon,
      reload: () => process.kill(daemon.pid, "SIGHUP"),
      async mark() {},
      async checksSince() {
        return (await cib()).active_service_checks_1min ?? 0;
      },
      async latency() {
        const s = await cib();
        return {
          ...(s.avg_latency === undefined ? {} : { avg: s.avg_latency }),
          ...(s.max_latency === undefined ? {} : { max: s.max_latency }),
        };
      },
      async passiveSince() {
        return (await cib()).passive_service_checks_1min;
      },
      async overdue(olderThanS) {
        const r = await icingaCall(
          agent,
          port,
          "GET",
          "/v1/objects/services?attrs=last_check&attrs=enable_active_checks",
        );
        const cutoff = Date.now() / 1000 - olderThanS;
        const services = (
          JSON.parse(r.body) as {
            results: { attrs: { last_check: number; enable_active_checks: boolean } }[];
          }
        ).results;
        return services.filter((s) => s.attrs.enable_active_checks && s.attrs.last_check < cutoff).length;
      },
    };
  },
};

/** The API port of a running Icinga 2 started by `icinga2.start`. */
export function icingaPort(dir: string): number {
  return Number(
    /bind_port = (\d+)/.exec(execFileSync("cat", [join(dir, "etc/icinga2.conf")], { encoding: "utf8" }))?.[1],
  );
}
