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
 * `rack` (host index mod 10) and `tier` (web for even services, db for odd). Every object gets its
 * own check and label objects, as a loader would produce them, so memory figures are honest.
 */
export function fleetConfig(shape: FleetShape): Config {
  const check = (): CheckConfig => ({
    ...DEFAULT_SCHEDULE,
    maxAttempts: shape.maxAttempts ?? DEFAULT_SCHEDULE.maxAttempts,
    type: "passive",
    freshnessThresholdMs: shape.freshnessMs ?? 86_400_000,
    staleStatus: "UNKNOWN",
  });
  const hosts = new Map<string, HostConfig>();
  for (let i = 0; i < shape.hosts; i++) {
    const name = fleetHost(i);
    const services = new Map<string, ServiceConfig>();
    for (let j = 0; j < shape.servicesPerHost; j++) {
      const sname = fleetService(j);
      services.set(sname, {
        host: name,
        name: sname,
        vars: {},
        check: check(),
        notification: "",
        zone: "default",
        labels: { tier: j % 2 === 0 ? "web" : "db" },
      });
    }
    hosts.set(name, {
      name,
      address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      parents: [],
      vars: {},
      check: check(),
      services,
      notification: "",
      zone: "default",
      labels: { env: i % 2 === 0 ? "prod" : "dev", rack: `r${i % 10}` },
    });
  }
  return { ...EMPTY_CONFIG, hosts };
}
