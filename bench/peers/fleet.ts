/**
 * One fleet, written three ways: the same hosts and services for Lookout (CUE), Icinga 2 (its DSL)
 * and Nagios 4 (object definitions). Hosts are not checked actively (a passive host check in
 * Lookout, active checks off in the peers), so every figure is about the services.
 */

export const CHECK_DUMMY = "/usr/lib/nagios/plugins/check_dummy";

export interface FleetSpec {
  readonly services: number;
  readonly servicesPerHost: number;
  /** `active`: check_dummy every `intervalS`; `passive`: results come from outside. */
  readonly mode: "active" | "passive";
  readonly intervalS: number;
  /**
   * Probes: the first `services` services of the fleet run `plugin <host>/<service>` actively every
   * `intervalS` whatever `mode` says (the reload workload: the plugin logs each run, so a check
   * that is late or runs twice across a reload shows).
   */
  readonly probe?: { readonly services: number; readonly plugin: string; readonly intervalS: number };
}

export function hostName(i: number): string {
  return `h${String(i).padStart(6, "0")}`;
}

export function serviceName(j: number): string {
  return `s${String(j).padStart(2, "0")}`;
}

/** Every (host, service) pair of the fleet, in order. */
export function* objects(f: FleetSpec): Generator<{ host: string; service: string }> {
  const hosts = Math.ceil(f.services / f.servicesPerHost);
  let n = 0;
  for (let i = 0; i < hosts; i++) {
    for (let j = 0; j < f.servicesPerHost && n < f.services; j++, n++) {
      yield { host: hostName(i), service: serviceName(j) };
    }
  }
}

/** Whether the service at position n of objects(f) is a probe. */
const isProbe = (f: FleetSpec, n: number): boolean => n < (f.probe?.services ?? 0);

function hostsOf(f: FleetSpec): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const o of objects(f)) {
    const list = m.get(o.host) ?? [];
    list.push(o.service);
    m.set(o.host, list);
  }
  return m;
}

/** Lookout: plain CUE data, one legacy (or passive) check per service. */
export function lookoutFleet(f: FleetSpec, extra = ""): string {
  const svcCheck =
    f.mode === "active"
      ? `{type: "legacy", path: "${CHECK_DUMMY}", args: ["0", "ok"], check_interval: "${f.intervalS}s", retry_interval: "${f.intervalS}s"}`
      : `{type: "passive", freshness_threshold: "24h"}`;
  const out: string[] = ["hosts: {"];
  let n = 0;
  for (const [host, services] of hostsOf(f)) {
    out.push(`\t${host}: {`);
    out.push(`\t\taddress: "127.0.0.1"`);
    out.push(`\t\tcheck: {type: "passive", freshness_threshold: "24h"}`);
    out.push(`\t\tservices: {`);
    for (const s of services) {
      const check =
        f.probe !== undefined && isProbe(f, n++)
          ? `{type: "legacy", path: "${f.probe.plugin}", args: ["${host}/${s}"], check_interval: "${f.probe.intervalS}s", retry_interval: "${f.probe.intervalS}s"}`
          : svcCheck;
      out.push(`\t\t\t${s}: check: ${check}`);
    }
    out.push("\t\t}");
    out.push("\t}");
  }
  out.push("}");
  out.push(extra);
  return `${out.join("\n")}\n`;
}

/** Icinga 2: hosts and services as objects importing one template each. */
export function icingaFleet(f: FleetSpec, extra = ""): string {
  const active = f.mode === "active";
  const out: string[] = [
    `template Host "bench-host" { check_command = "dummy"; enable_active_checks = false; max_check_attempts = 3 }`,
    // Not the ITL's "dummy": Icinga runs that one in-process (DummyCheck), without fork and exec.
    // check_dummy as a plugin, like Lookout's legacy check and Nagios's command.
    `object CheckCommand "bench-check-dummy" { command = [ "${CHECK_DUMMY}", "0", "ok" ] }`,
    `template Service "bench-service" { check_command = "bench-check-dummy"; ` +
      `check_interval = ${f.intervalS}s; retry_interval = ${f.intervalS}s; max_check_attempts = 3; ` +
      `enable_active_checks = ${active}; enable_notifications = false }`,
  ];
  if (f.probe !== undefined)
    out.push(
      `object CheckCommand "bench-probe" { command = [ "${f.probe.plugin}", "$host.name$/$service.name$" ] }`,
    );
  let n = 0;
  for (const [host, services] of hostsOf(f)) {
    out.push(`object Host "${host}" { import "bench-host"; address = "127.0.0.1" }`);
    for (const s of services) {
      const probe =
        f.probe !== undefined && isProbe(f, n++)
          ? `; check_command = "bench-probe"; enable_active_checks = true; check_interval = ${f.probe.intervalS}s; retry_interval = ${f.probe.intervalS}s`
          : "";
      out.push(`object Service "${s}" { import "bench-service"; host_name = "${host}"${probe} }`);
    }
  }
  out.push(extra);
  return `${out.join("\n")}\n`;
}

/** Nagios 4: one template per kind, then each host and service. */
export function nagiosFleet(f: FleetSpec, extra = ""): string {
  const active = f.mode === "active" ? 1 : 0;
  const out: string[] = [
    "define timeperiod {\n timeperiod_name 24x7\n alias 24x7\n sunday 00:00-24:00\n monday 00:00-24:00\n tuesday 00:00-24:00\n wednesday 00:00-24:00\n thursday 00:00-24:00\n friday 00:00-24:00\n saturday 00:00-24:00\n}",
    `define command {\n command_name check_dummy\n command_line ${CHECK_DUMMY} $ARG1$ $ARG2$\n}`,
    "define contact {\n contact_name bench\n alias bench\n host_notifications_enabled 0\n service_notifications_enabled 0\n host_notification_period 24x7\n service_notification_period 24x7\n host_notification_options n\n service_notification_options n\n host_notification_commands check_dummy\n service_notification_commands check_dummy\n}",
    "define host {\n name bench-host\n register 0\n check_command check_dummy!0!ok\n active_checks_enabled 0\n passive_checks_enabled 1\n max_check_attempts 3\n check_period 24x7\n notification_period 24x7\n contacts bench\n notifications_enabled 0\n}",
    `define service {\n name bench-service\n register 0\n check_command check_dummy!0!ok\n check_interval ${f.intervalS}\n retry_interval ${f.intervalS}\n max_check_attempts 3\n active_checks_enabled ${active}\n passive_checks_enabled 1\n check_period 24x7\n notification_period 24x7\n contacts bench\n notifications_enabled 0\n}`,
  ];
  if (f.probe !== undefined)
    out.push(
      `define command {\n command_name bench-probe\n command_line ${f.probe.plugin} $HOSTNAME$/$SERVICEDESC$\n}`,
    );
  let n = 0;
  for (const [host, services] of hostsOf(f)) {
    out.push(`define host {\n use bench-host\n host_name ${host}\n address 127.0.0.1\n}`);
    for (const s of services) {
      const probe =
        f.probe !== undefined && isProbe(f, n++)
          ? `\n check_command bench-probe\n active_checks_enabled 1\n check_interval ${f.probe.intervalS}\n retry_interval ${f.probe.intervalS}`
          : "";
      out.push(
        `define service {\n use bench-service\n host_name ${host}\n service_description ${s}${probe}\n}`,
      );
    }
  }
  out.push(extra);
  return `${out.join("\n")}\n`;
}
