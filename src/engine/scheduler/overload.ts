/**
 * How far the schedule is ahead of what the scheduler can start, in figures an operator can act on.
 * The scheduler samples its queue at most every `OVERLOAD_SAMPLE_MS`: how many due checks wait for a
 * slot (the backlog), how long the oldest of them has waited, how many runs started since the last
 * sample, and how many checks per second the schedule asks for (the demand). While the oldest due
 * check has waited longer than `OVERLOAD_LATE_MS`, the scheduler is behind, and the shortfall is the
 * demand it does not start.
 */

/** The least time between two samples. */
export const OVERLOAD_SAMPLE_MS = 5_000;
/** A due check that waited longer than this for a slot means the schedule is not kept. */
export const OVERLOAD_LATE_MS = 1_000;
/** The least time between two "behind" log lines while the overload lasts. */
export const OVERLOAD_LOG_EVERY_MS = 60_000;

/** What limits the starts: every slot taken (`concurrency`), or the scheduler's own turns. */
export type OverloadLimit = "concurrency" | "start-rate";

/** One sample of the queue. */
export interface OverloadSample {
  /** Whether the oldest waiting due check has waited longer than OVERLOAD_LATE_MS. */
  readonly behind: boolean;
  /** Checks per second the schedule asks for: the sum of 1 / interval over scheduled objects. */
  readonly demandPerSecond: number;
  /** Runs started per second since the previous sample. */
  readonly startedPerSecond: number;
  /** Demand not started, per second: demand − started while behind, else 0. */
  readonly shortfallPerSecond: number;
  /** Due checks waiting for a slot. */
  readonly backlog: number;
  /** How long the oldest waiting due check has waited, in seconds (0 when none waits). */
  readonly oldestWaitSeconds: number;
  /** Objects on the schedule divided by the start rate: how often each object runs at this rate. */
  readonly effectiveIntervalSeconds: number;
  readonly inFlight: number;
  readonly concurrency: number;
  readonly limit: OverloadLimit;
}

/** What the scheduler hands over when it samples. */
export interface OverloadProbe {
  readonly now: number;
  readonly backlog: number;
  /** The due time of the oldest waiting check, or +Infinity when none waits. */
  readonly oldestDue: number;
  readonly objects: number;
  readonly demandPerSecond: number;
  readonly inFlight: number;
  readonly concurrency: number;
}

/** What to say after a sample: nothing, that the scheduler is behind, or that it caught up. */
export type OverloadNews = "none" | "behind" | "recovered";

export interface OverloadWatch {
  /** Counts one started run. */
  started(): void;
  /** Whether a sample is due at `now`. */
  due(now: number): boolean;
  /** Takes a sample; `news` says whether to log it. */
  sample(p: OverloadProbe): { readonly sample: OverloadSample; readonly news: OverloadNews };
}

/** A watch that starts counting at `now`. */
export function createOverloadWatch(now: number): OverloadWatch {
  let starts = 0;
  let since = now;
  let behindSince: number | undefined;
  let lastLog = Number.NEGATIVE_INFINITY;
  return {
    started() {
      starts++;
    },
    due(t) {
      return t - since >= OVERLOAD_SAMPLE_MS;
    },
    sample(p) {
      const elapsed = Math.max(1, p.now - since);
      const startedPerSecond = (starts * 1000) / elapsed;
      starts = 0;
      since = p.now;
      const waitMs = p.backlog > 0 && Number.isFinite(p.oldestDue) ? Math.max(0, p.now - p.oldestDue) : 0;
      const behind = waitMs > OVERLOAD_LATE_MS;
      const sample: OverloadSample = {
        behind,
        demandPerSecond: p.demandPerSecond,
        startedPerSecond,
        shortfallPerSecond: behind ? Math.max(0, p.demandPerSecond - startedPerSecond) : 0,
        backlog: p.backlog,
        oldestWaitSeconds: waitMs / 1000,
        effectiveIntervalSeconds:
          startedPerSecond > 0 ? p.objects / startedPerSecond : Number.POSITIVE_INFINITY,
        inFlight: p.inFlight,
        concurrency: p.concurrency,
        limit: p.inFlight >= p.concurrency ? "concurrency" : "start-rate",
      };
      let news: OverloadNews = "none";
      if (behind) {
        if (behindSince === undefined) behindSince = p.now;
        if (p.now - lastLog >= OVERLOAD_LOG_EVERY_MS) {
          lastLog = p.now;
          news = "behind";
        }
      } else if (behindSince !== undefined) {
        behindSince = undefined;
        lastLog = Number.NEGATIVE_INFINITY;
        news = "recovered";
      }
      return { sample, news };
    },
  };
}

/** The fields of the log line, rounded for reading. */
export function overloadFields(s: OverloadSample): Record<string, number | string> {
  const r = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;
  return {
    demandPerSecond: r(s.demandPerSecond),
    startedPerSecond: r(s.startedPerSecond),
    shortfallPerSecond: r(s.shortfallPerSecond),
    backlog: s.backlog,
    oldestWaitSeconds: r(s.oldestWaitSeconds),
    effectiveIntervalSeconds: Number.isFinite(s.effectiveIntervalSeconds)
      ? r(s.effectiveIntervalSeconds)
      : "never",
    inFlight: s.inFlight,
    concurrency: s.concurrency,
    limit: s.limit,
  };
}
