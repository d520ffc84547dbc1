/**
 * Builders shared by the scheduler's tests and its benchmark: a typed Config from a flat list of
 * objects, fake checkers that take fake time, and a way to let fake time pass while promises settle.
 * Not part of the module's API.
 */

import type { Registry } from "prom-client";
import type { CheckOutcome, CheckResult } from "../../model/check-result.js";
import type { Checker, CheckTarget } from "../../model/checker.js";
import type { Clock } from "../../model/clock.js";
import {
  type CheckConfig,
  type Config,
  DEFAULT_SCHEDULE,
  EMPTY_CONFIG,
  type HostConfig,
  type ProbeConfig,
  type ScheduleConfig,
  type ServiceConfig,
} from "../../model/config.js";
import type { ExitStatus } from "../../model/state.js";
import type { FakeClock } from "../../testing/fake-clock.js";

/** One object of a fixture config: a host check when `service` is absent. */
export interface FixtureObject {
  readonly host: string;
  readonly service?: string;
  readonly probe?: ProbeConfig;
  readonly schedule?: Partial<ScheduleConfig>;
  readonly address?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

const TCP_PROBE: ProbeConfig = { type: "tcp", address: "127.0.0.1:9" };
const PASSIVE_HOST: CheckConfig = {
  type: "passive",
  freshnessThresholdMs: 3_600_000,
  staleStatus: "UNKNOWN",
  ...DEFAULT_SCHEDULE,
};

/**
 * A config holding exactly the given objects. Hosts named only by services get a passive host check,
 * so they add nothing to the schedule.
 */
export function fixtureConfig(objects: readonly FixtureObject[]): Config {
  const hostChecks = new Map<string, FixtureObject>();
  const services = new Map<string, FixtureObject[]>();
  for (const o of objects) {
    if (o.service === undefined) hostChecks.set(o.host, o);
    else services.set(o.host, [...(services.get(o.host) ?? []), o]);
  }
  const hosts = new Map<string, HostConfig>();
  for (const name of new Set([...hostChecks.keys(), ...services.keys()])) {
    const own = hostChecks.get(name);
    const svcMap = new Map<string, ServiceConfig>();
    for (const s of services.get(name) ?? []) {
      const svc = s.service as string;
      svcMap.set(svc, {
        host: name,
        name: svc,
        vars: {},
        check: checkOf(s),
        notification: "",
        zone: "default",
        labels: s.labels ?? {},
      });
    }
    hosts.set(name, {
      name,
      address: own?.address ?? "127.0.0.1",
      parents: [],
      vars: {},
      check: own === undefined ? PASSIVE_HOST : checkOf(own),
      services: svcMap,
      notification: "",
      zone: "default",
      labels: {},
    });
  }
  return { ...EMPTY_CONFIG, hosts };
}

function checkOf(o: FixtureObject): CheckConfig {
  return { ...DEFAULT_SCHEDULE, ...o.schedule, ...(o.probe ?? TCP_PROBE) } as CheckConfig;
}

/** What a fake check does for one run: its exit status and how much (fake) time it takes. */
export interface FakeBehaviour {
  readonly status: ExitStatus;
  readonly takesMs: number;
  /** When true the check ignores its abort signal and never settles. */
  readonly hangs?: boolean;
}

/** A record of one run a fake checker saw. */
export interface FakeRun {
  readonly key: string;
  readonly startedAt: number;
  readonly signal: AbortSignal;
}

/** A checker for `type` that takes fake time on `clock` and settles promptly when aborted. */
export function fakeChecker(
  type: ProbeConfig["type"],
  clock: Clock,
  behave: (key: string, n: number) => FakeBehaviour,
  seen: FakeRun[] = [],
): Checker {
  const counts = new Map<string, number>();
  return {
    type,
    run(target: CheckTarget, signal: AbortSignal): Promise<CheckOutcome> {
      const key =
        target.service === undefined ? target.host.name : `${target.host.name}!${target.service.name}`;
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      seen.push({ key, startedAt: clock.now(), signal });
      const b = behave(key, n);
      return new Promise((resolve) => {
        if (b.hangs) return;
        const done = (status: ExitStatus, output: string) =>
          resolve({ exitStatus: status, output, longOutput: "", perfdata: [] });
        if (b.takesMs <= 0) return done(b.status, `fake ${b.status}`);
        const t = clock.setTimer(b.takesMs, () => done(b.status, `fake ${b.status}`));
        signal.addEventListener("abort", () => {
          t.cancel();
          done(3, "aborted");
        });
      });
    },
  };
}

/** Lets `ms` of fake time pass in steps, settling promises between steps. */
export async function runFor(clock: FakeClock, ms: number, stepMs = 1_000): Promise<void> {
  const settle = () => new Promise<void>((r) => setImmediate(r));
  await settle(); // runs started synchronously before this call settle at the current time
  let left = ms;
  while (left > 0) {
    const step = Math.min(stepMs, left);
    clock.advance(step);
    left -= step;
    await settle();
  }
}

/** Options of a test harness; every field has a small default. */
export interface HarnessOptions {
  readonly behave?: (key: string, n: number) => FakeBehaviour;
  readonly concurrency?: number;
  /** Attempts before a non-OK state turns hard; the harness answers `needsRetry` like Nagios. */
  readonly maxAttempts?: number;
  readonly registry?: Registry;
  readonly timeoutStatus?: 1 | 2 | 3;
  readonly abortGraceMs?: number;
  /** Check types that get a fake checker; tcp only unless set. */
  readonly types?: readonly ProbeConfig["type"][];
  readonly clock: FakeClock;
}

/** A scheduler wired to fake checkers, a recording sink and a Nagios-like soft/hard answer. */
export function createHarness(opts: HarnessOptions) {
  const clock = opts.clock;
  const results: CheckResult[] = [];
  const seen: FakeRun[] = [];
  const warnings: string[] = [];
  const attempts = new Map<string, number>();
  const maxAttempts = opts.maxAttempts ?? 3;
  const behave = opts.behave ?? (() => ({ status: 0 as const, takesMs: 0 }));
  const checkers = new Map(
    (opts.types ?? ["tcp"]).map((t) => [t, fakeChecker(t, clock, behave, seen)] as const),
  );
  return {
    results,
    seen,
    warnings,
    /** The keys whose last result left them soft non-OK. */
    attempts,
    options: {
      clock,
      checkers,
      concurrency: opts.concurrency ?? 100,
      submit(r: CheckResult) {
        results.push(r);
        const key = r.service === undefined ? r.host : `${r.host}!${r.service}`;
        attempts.set(key, r.exitStatus === 0 ? 0 : (attempts.get(key) ?? 0) + 1);
      },
      needsRetry(key: string) {
        const a = attempts.get(key) ?? 0;
        return a > 0 && a < maxAttempts;
      },
      logger: { warn: (m: string) => warnings.push(m) },
      ...(opts.registry === undefined ? {} : { metrics: opts.registry }),
      ...(opts.timeoutStatus === undefined ? {} : { timeoutStatus: opts.timeoutStatus }),
      ...(opts.abortGraceMs === undefined ? {} : { abortGraceMs: opts.abortGraceMs }),
    },
  };
}
