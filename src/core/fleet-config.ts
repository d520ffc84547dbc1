import {
  type CheckConfig,
  type Config,
  DEFAULT_SCHEDULE,
  EMPTY_CONFIG,
  type HostConfig,
  type ServiceConfig,
} from "../model/config.js";

/** Shape of a synthetic fleet for tests and benchmarks. */
export interface FleetShape {
  readonly hosts: number;
  readonly servicesPerHost: number;
  /** Passive freshness threshold; the default (1 day) keeps freshness timers out of the way. */
  readonly freshnessMs?: number;
  readonly maxAttempts?: number;
}

/** The host name of host i: `host-00042`. */
export function fleetHost(i: number): string {
  return `host-${String(i).padStart(5, "0")}`;
}

/** The service name of service j: `svc-007`. */
export function fleetService(j: number): string {
  return `svc-${String(j).padStart(3, "0")}`;
}

/**
 * A config of passive hosts and services, labelled `env` (prod for even hosts, dev for odd),
 * `rack` (host index mod 10) and `tier` (web for even services, db for odd). Equal checks, label
 * sets, vars and service names are one object each, as the server's loader shares them
 * (src/config/intern.ts), so memory figures are those of the real thing.
 */
export function fleetConfig(shape: FleetShape): Config {
  const check: CheckConfig = {
    ...DEFAULT_SCHEDULE,
    maxAttempts: shape.maxAttempts ?? DEFAULT_SCHEDULE.maxAttempts,
    type: "passive",
    freshnessThresholdMs: shape.freshnessMs ?? 86_400_000,
    staleStatus: "UNKNOWN",
  };
  const vars = {};
  const tiers = [{ tier: "web" }, { tier: "db" }];
  const hostLabels = Array.from({ length: 20 }, (_, k) => ({
    env: k % 2 === 0 ? "prod" : "dev",
    rack: `r${k % 10}`,
  }));
  const serviceNames = Array.from({ length: shape.servicesPerHost }, (_, j) => fleetService(j));
  const hosts = new Map<string, HostConfig>();
  for (let i = 0; i < shape.hosts; i++) {
    const name = fleetHost(i);
    const services = new Map<string, ServiceConfig>();
    for (let j = 0; j < shape.servicesPerHost; j++) {
      const sname = serviceNames[j] as string;
      services.set(sname, {
        host: name,
        name: sname,
        vars,
        check,
        notification: "",
        zone: "default",
        labels: tiers[j % 2] as ServiceConfig["labels"],
      });
    }
    hosts.set(name, {
      name,
      address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      parents: [],
      vars,
      check,
      services,
      notification: "",
      zone: "default",
      // env is i % 2 and rack i % 10: both are fixed by i % 20.
      labels: hostLabels[i % 20] as HostConfig["labels"],
    });
  }
  return { ...EMPTY_CONFIG, hosts };
}

/**
 * The passive fleet of `fleetConfig` as a CUE document, for tests and benchmarks that start the real
 * binary: hosts labelled `env` (prod for even hosts, dev for odd) and `rack` (r0–r9), addresses on
 * loopback (passive checks never connect), services optionally labelled `tier` (web for even, db for
 * odd), and `extra` CUE appended (views, say).
 */
export function fleetDocument(o: {
  readonly hosts: number;
  readonly servicesPerHost: number;
  readonly serviceLabels?: boolean;
  readonly extra?: string;
}): string {
  const check = `{type: "passive", freshness_threshold: "24h"}`;
  const out = ["hosts: {"];
  for (let i = 0; i < o.hosts; i++) {
    out.push(
      `\t"${fleetHost(i)}": {`,
      `\t\taddress: "127.${(i >> 16) & 255}.${(i >> 8) & 255}.${(i & 255) + 1}"`,
      `\t\tlabels: {env: "${i % 2 === 0 ? "prod" : "dev"}", rack: "r${i % 10}"}`,
      `\t\tcheck: ${check}`,
      `\t\tservices: {`,
    );
    for (let j = 0; j < o.servicesPerHost; j++) {
      const labels = o.serviceLabels === true ? `, labels: {tier: "${j % 2 === 0 ? "web" : "db"}"}` : "";
      out.push(`\t\t\t"${fleetService(j)}": {check: ${check}${labels}}`);
    }
    out.push("\t\t}", "\t}");
  }
  out.push("}", o.extra ?? "", "");
  return out.join("\n");
}
