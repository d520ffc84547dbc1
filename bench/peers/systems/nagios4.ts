import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FleetSpec, hostName, nagiosFleet } from "../fleet.js";
import { sleep, startDaemon } from "../procs.js";
import type { Peer, Running } from "./peer.js";

/** nagios.cfg with every path inside the run's directory; interval_length=1 makes intervals seconds. */
function writeConfig(dir: string, fleet: FleetSpec): string {
  mkdirSync(join(dir, "var/rw"), { recursive: true });
  mkdirSync(join(dir, "var/checkresults"), { recursive: true });
  const v = (p: string) => join(dir, "var", p);
  const cfg = [
    `log_file=${v("nagios.log")}`,
    `cfg_file=${join(dir, "objects.cfg")}`,
    `object_cache_file=${v("objects.cache")}`,
    `precached_object_file=${v("objects.precache")}`,
    `resource_file=${join(dir, "resource.cfg")}`,
    `status_file=${v("status.dat")}`,
    "status_update_interval=5",
    "nagios_user=root",
    "nagios_group=root",
    "check_external_commands=1",
    `command_file=${v("rw/nagios.cmd")}`,
    `lock_file=${v("nagios.lock")}`,
    `temp_file=${v("nagios.tmp")}`,
    `temp_path=${v("")}`,
    `check_result_path=${v("checkresults")}`,
    `state_retention_file=${v("retention.dat")}`,
    "retain_state_information=0",
    "interval_length=1",
    "use_syslog=0",
    "log_passive_checks=0",
    "enable_notifications=0",
    "enable_event_handlers=0",
    "max_concurrent_checks=0",
    "check_result_reaper_frequency=1",
    // A line per service check result processed, active or passive: the count the benchmark reads
    // (nagios4stats counts services checked in the last minute, not checks).
    "process_performance_data=1",
    `service_perfdata_file=${v("checks.log")}`,
    "service_perfdata_file_template=$TIMET$ $SERVICECHECKTYPE$",
    "service_perfdata_file_mode=a",
    "service_perfdata_file_processing_interval=0",
  ];
  writeFileSync(join(dir, "nagios.cfg"), `${cfg.join("\n")}\n`);
  writeFileSync(join(dir, "resource.cfg"), "");
  writeFileSync(join(dir, "objects.cfg"), nagiosFleet(fleet));
  return join(dir, "nagios.cfg");
}

function stats(cfg: string, vars: string[]): number[] {
  const out = execFileSync("nagios4stats", ["-c", cfg, "-m", "-D", " ", "-d", vars.join(",")], {
    encoding: "utf8",
  });
  return out.trim().split(/\s+/).map(Number);
}

/** Services in a Nagios status.dat with active checks enabled whose last check is before `cutoff` (epoch s). */
export function overdueInStatus(status: string, cutoff: number): number {
  let n = 0;
  for (const block of status.split("servicestatus {").slice(1)) {
    const field = (name: string) => new RegExp(`\\n\\s*${name}=(\\S*)`).exec(block)?.[1];
    if (field("active_checks_enabled") === "1" && Number(field("last_check") ?? 0) < cutoff) n++;
  }
  return n;
}

export const nagios4: Peer = {
  name: "nagios4",
  version() {
    return /Nagios Core (\S+)/.exec(execFileSync("nagios4", ["--version"], { encoding: "utf8" }))?.[1] ?? "?";
  },
  addService(dir, fleet, plugin) {
    const extra = [
      `define command {\n command_name bench-new\n command_line ${plugin}\n}`,
      `define service {\n use bench-service\n host_name ${hostName(0)}\n service_description new\n check_command bench-new\n active_checks_enabled 1\n check_interval 10\n}`,
    ].join("\n");
    writeFileSync(join(dir, "objects.cfg"), nagiosFleet(fleet, extra));
  },
  validate(dir, fleet: FleetSpec) {
    return { cmd: "nagios4", args: ["-v", writeConfig(dir, fleet)] };
  },
  async start(dir, fleet): Promise<Running> {
    const cfg = writeConfig(dir, fleet);
    const daemon = startDaemon("nagios4", [cfg]);
    for (let i = 0; ; i++) {
      try {
        const [n] = stats(cfg, ["NUMSERVICES"]);
        if ((n ?? 0) > 0) break;
      } catch {
        // no status.dat yet
      }
      if (i > 3000 || daemon.child.exitCode !== null)
        throw new Error(`nagios4 did not start: ${daemon.output()}`);
      await sleep(100);
    }
    const log = join(dir, "var/checks.log");
    /** Lines of checks.log of the given type from `since` (epoch s) on. */
    const count = (type: "ACTIVE" | "PASSIVE", since: number): number => {
      let n = 0;
      let text = "";
      try {
        text = readFileSync(log, "utf8");
      } catch {
        return 0;
      }
      for (const line of text.split("\n")) {
        const sp = line.indexOf(" ");
        if (sp > 0 && Number(line.slice(0, sp)) >= since && line.endsWith(type)) n++;
      }
      return n;
    };
    let since = 0;
    return {
      daemon,
      reload: () => process.kill(daemon.pid, "SIGHUP"),
      async mark() {
        since = Math.ceil(Date.now() / 1000);
      },
      async checksSince() {
        return count("ACTIVE", since);
      },
      async latency() {
        const [avg, max] = stats(cfg, ["AVGACTSVCLAT", "MAXACTSVCLAT"]);
        return { avg: (avg ?? 0) / 1000, max: (max ?? 0) / 1000 };
      },
      async passiveSince() {
        return count("PASSIVE", since);
      },
      async overdue(olderThanS) {
        // status.dat is rewritten every status_update_interval (5 s): the count may lag by that.
        return overdueInStatus(
          readFileSync(join(dir, "var/status.dat"), "utf8"),
          Date.now() / 1000 - olderThanS,
        );
      },
      commandFile: {
        path: nagiosCommandFile(dir),
        processed() {
          // Every line is `<10-digit epoch> PASSIVE` (the fleet is passive, hosts unchecked): the
          // file's size counts them without reading it; the exact count once it says enough.
          try {
            return Math.floor(statSync(log).size / "0000000000 PASSIVE\n".length);
          } catch {
            return 0;
          }
        },
      },
    };
  },
};

/** The command file of a Nagios run in `dir`. */
export function nagiosCommandFile(dir: string): string {
  return join(dir, "var/rw/nagios.cmd");
}
