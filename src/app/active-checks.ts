import type { Registry } from "prom-client";
import type { Core } from "../core/core.js";
import { createScheduler, type PlannedCheck, type Scheduler } from "../engine/scheduler/index.js";
import type { CheckResult } from "../model/check-result.js";
import type { Clock } from "../model/clock.js";
import type { Config } from "../model/config.js";
import type { Logger } from "../model/logger.js";
import { objectKey } from "../model/object-ref.js";
import { createCheckers } from "./checkers.js";

export interface ActiveChecks {
  /**
   * Plans the config against the schedule in short steps, then switches to it in one brief turn;
   * resolves once the new schedule runs (at once if stopped meanwhile).
   */
  applyConfig(config: Config): Promise<void>;
  stop(): Promise<void>;
  /** Submits a result as the scheduler does (zones: "no worker for zone X"). */
  submit(result: CheckResult): void;
  /** Tells the scheduler a result that arrived another way (a zone's worker) is visible. */
  resultApplied(key: string): void;
}

/**
 * Runs the active checks of the config and feeds their results into the core, the same pipeline
 * passive results take. A result is enqueued first and applied a moment later; the core says when
 * it is visible, and then the scheduler re-reads the object's state (soft problem → retry_interval).
 */
export function startActiveChecks(o: {
  readonly core: Core;
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly concurrency: number;
  /** Hands due checks of zones that do not run here to their workers (src/zones/). */
  readonly route?: (plan: PlannedCheck, due: number) => boolean;
  /** See SchedulerOptions.catchUpMs (a standby taking over). */
  readonly catchUpMs?: number;
}): ActiveChecks {
  const { core, clock, logger } = o;
  const checkers = createCheckers({ clock });
  let scheduler: Scheduler | undefined;
  let stopping = false;
  const submit = (result: CheckResult) => {
    const key = objectKey(result);
    core
      .submit([{ type: "ProcessCheckResult", result }], {
        onVisible: () => scheduler?.resultApplied(key),
        source: "scheduler",
      })
      .catch((e: unknown) => logger.warn("check result not enqueued", { object: key, error: e }));
  };
  const needsRetry = (key: string) => {
    const s = core.view.projection.status(key);
    if (s === undefined || s.stateType !== "SOFT") return false;
    return s.state !== "OK" && s.state !== "UP" && s.state !== "PENDING";
  };
  scheduler = createScheduler({
    clock,
    checkers: checkers.checkers,
    submit,
    needsRetry,
    // Read from the projection, as needsRetry is: a switch turned off is honoured once applied.
    activeChecksDisabled: (key) => core.view.projection.switchedOff(key, "activeChecks"),
    concurrency: o.concurrency,
    metrics: o.metrics,
    logger,
    ...(o.route === undefined ? {} : { route: o.route }),
    ...(o.catchUpMs === undefined ? {} : { catchUpMs: o.catchUpMs }),
    // Never checked: no record in the projection (docs/scheduling.md, "First runs").
    isNew: (key) => core.view.projection.statusRef(key) < 0,
  });
  scheduler.applyConfig(o.config);
  scheduler.start();
  // RescheduleCheck: those still pending when this started (a restart), then each as it is applied.
  const projection = core.view.projection;
  for (const r of projection.reschedules()) scheduler.reschedule(r.key, r.runAt, r.force);
  const unsubscribe = projection.onReschedule((r) => {
    if (scheduler?.reschedule(r.key, r.runAt, r.force) === false) {
      logger.info("rescheduled check not on the schedule", { object: r.key });
    }
  });
  return {
    async applyConfig(config) {
      const prepared = await scheduler?.prepareConfig(config);
      if (prepared === undefined || scheduler === undefined || stopping) return; // stopped meanwhile
      logger.info("schedule updated", { ...scheduler.applyPrepared(prepared) });
    },
    submit,
    resultApplied: (key) => scheduler?.resultApplied(key),
    async stop() {
      stopping = true;
      unsubscribe();
      await scheduler?.stop();
      scheduler = undefined;
      await checkers.close();
    },
  };
}
