import type { CheckOutcome } from "./check-result.js";
import type { Config, HostConfig, ProbeConfig, ScheduleConfig, ServiceConfig } from "./config.js";

/** What one run of a check needs: the probe, the object it checks, and the config (for macros). */
export interface CheckTarget<P extends ProbeConfig = ProbeConfig> {
  readonly probe: P & ScheduleConfig;
  readonly host: HostConfig;
  /** Absent for a host check. */
  readonly service?: ServiceConfig;
  readonly config: Config;
}

/**
 * The seam every check type implements (src/checks/<type>/); the scheduler (src/engine/scheduler/)
 * and a zone's worker run checks through it, so it lives here, where the engine owns it. `run` never rejects: a failure is a CRITICAL or UNKNOWN
 * outcome whose output says why. When `signal` aborts (the scheduler's timeout or shutdown), the
 * check stops its work, releases what it holds (sockets, child processes, workers) and settles
 * promptly; the scheduler records the timeout itself. Runs may be concurrent.
 */
export interface Checker<P extends ProbeConfig = ProbeConfig> {
  readonly type: P["type"];
  run(target: CheckTarget<P>, signal: AbortSignal): Promise<CheckOutcome>;
}
