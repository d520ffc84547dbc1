import type { CheckOutcome, CheckResult } from "../../model/check-result.js";
import type { TimerHandle } from "../../model/clock.js";
import type { Config } from "../../model/config.js";
import { isExitStatus } from "../../model/state.js";
import type { ApplySummary, PreparedSchedule, Scheduler, SchedulerOptions } from "./api.js";
import { createDueHeap, type HeapItem } from "./due-heap.js";
import { firstRunDue, firstRunWindowMs } from "./first-run.js";
import { createSchedulerMetrics, noMetrics, type RunResult } from "./metrics.js";
import {
  checkerFailedOutcome,
  formatDuration,
  noCheckerOutcome,
  runResultOf,
  timeoutOutcome,
} from "./outcomes.js";
import { createOverloadWatch, overloadFields } from "./overload.js";
import type { PlannedCheck } from "./plan.js";
import { diffSteps, emptyDiff, type ScheduleDiff } from "./schedule-diff.js";
import { slotAtOrAfter, slotAtOrBefore } from "./slots.js";

interface Entry extends HeapItem {
  plan: PlannedCheck;
  /** The due time of the last run started, NaN before the first. */
  lastDue: number;
  retrying: boolean;
  run: Run | undefined;
  /** False once the object left the schedule or was replaced by a changed definition. */
  live: boolean;
  /** Made due by checkNow: runs even while its active checks are switched off (once). */
  forced?: boolean;
  /** When the object runs next on its own schedule (grid or retry); `due` is earlier when forced. */
  gridDue: number;
  /** When a rescheduled run (RescheduleCheck) is due, NaN when none is pending. */
  forcedAt: number;
  /** Whether the pending rescheduled run was forced (runs even where active checks are off). */
  force: boolean;
}

interface Run {
  readonly entry: Entry;
  readonly plan: PlannedCheck;
  readonly due: number;
  readonly startedAt: number;
  readonly controller: AbortController;
  /** A rescheduled run (RescheduleCheck): one extra run that moves no grid slot. */
  readonly rescheduled: boolean;
  timeout: TimerHandle | undefined;
  grace: TimerHandle | undefined;
  /** A result was submitted, or the run was dropped: nothing more may be submitted for it. */
  finished: boolean;
  settled: boolean;
  holdsSlot: boolean;
}

type DropReason = "removed" | "changed" | "shutdown";

/**
 * The most runs one timer callback starts. Starting a check costs real work (a tcp connect is a
 * syscall of some 100 µs), and the event loop also serves the API and the dashboard: after a stall
 * or under overload the backlog drains in batches, yielding to I/O between them.
 */
export const MAX_STARTS_PER_TURN = 256;

const MAX_TIMER_MS = 2_147_483_647;

/** Lets timers and I/O run: a macrotask, not a microtask, or the steps of a diff would still be one turn. */
const nextMacrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Creates a scheduler with an empty schedule. */
export function createScheduler(opts: SchedulerOptions): Scheduler {
  const { clock, checkers, submit, needsRetry } = opts;
  if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${opts.concurrency}`);
  }
  const concurrency = opts.concurrency;
  const timeoutStatus = opts.timeoutStatus ?? 2;
  const abortGraceMs = opts.abortGraceMs ?? 5_000;
  const log = opts.logger ?? { warn() {} };
  const metrics = opts.metrics ? createSchedulerMetrics(opts.metrics) : noMetrics;
  const diffStep = opts.diffStep ?? nextMacrotask;
  const route = opts.route;
  const switchedOff = opts.activeChecksDisabled;
  const catchUpMs = opts.catchUpMs ?? 0;
  const isNew = opts.isNew;

  const entries = new Map<string, Entry>();
  const heap = createDueHeap<Entry>();
  const runs = new Set<Run>();
  let inFlight = 0;
  let running = false;
  let stopped = false;
  let timer: TimerHandle | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  let stopPromise: Promise<void> | undefined;
  let resolveStop: (() => void) | undefined;
  /** Checks per second the schedule asks for (on check_interval), summed at every apply. */
  let demandPerSecond = 0;
  const overload = createOverloadWatch(clock.now());

  /** Samples the queue for the overload figures (O(objects), at most every few seconds). */
  const sampleOverload = (now: number): void => {
    let backlog = 0;
    let oldestDue = Number.POSITIVE_INFINITY;
    for (const e of heap.items()) {
      if (e.due > now) continue;
      backlog++;
      if (e.due < oldestDue) oldestDue = e.due;
    }
    const { sample, news } = overload.sample({
      now,
      backlog,
      oldestDue,
      objects: entries.size,
      demandPerSecond,
      inFlight,
      concurrency,
    });
    metrics.overload(sample);
    if (news === "behind") log.warn("active checks are due faster than they can run", overloadFields(sample));
    else if (news === "recovered")
      log.info?.("active checks keep their schedule again", overloadFields(sample));
  };

  const askNew = (key: string): boolean => {
    try {
      return isNew?.(key) === true;
    } catch (err) {
      log.warn("isNew threw; keeping the object's grid", { key, err });
      return false;
    }
  };

  const askRetry = (key: string): boolean => {
    try {
      return needsRetry(key);
    } catch (err) {
      log.warn("needsRetry threw; scheduling on check_interval", { key, err });
      return false;
    }
  };

  const intervalOf = (e: Entry): number => (e.retrying ? e.plan.retryIntervalMs : e.plan.checkIntervalMs);

  /**
   * Puts the object's own next run at `gridDue`; it is due then, or at its pending rescheduled run
   * if that comes first. Not while the entry is queued (the heap orders by `due`).
   */
  const schedule = (e: Entry, gridDue: number): void => {
    e.gridDue = gridDue;
    e.due = Number.isNaN(e.forcedAt) ? gridDue : Math.min(e.forcedAt, gridDue);
  };

  /**
   * The object's own next run after a run due at `due`. A rescheduled run is one extra run: an
   * object that was on its grid before it and is after it (not soft) keeps the slot it was waiting
   * for, or the next one if that passed while it ran; otherwise (retries) the usual rule.
   */
  const afterRun = (
    e: Entry,
    due: number,
    rescheduled: boolean,
    wasRetrying: boolean,
    now: number,
  ): number => {
    if (rescheduled && !wasRetrying && !e.retrying && e.gridDue > due) {
      return e.gridDue >= now ? e.gridDue : slotAtOrAfter(e.plan.key, intervalOf(e), now);
    }
    return nextDue(e, due, now);
  };

  /** Whether the run now due is the rescheduled one (and takes it off the entry). */
  const takeForced = (e: Entry): boolean => {
    if (!(e.forcedAt <= e.due)) return false;
    e.forcedAt = Number.NaN;
    e.force = false;
    return true;
  };

  /** A fresh slot: the first point of the object's grid from now on. */
  const slotFromNow = (e: Entry, now: number): number => {
    e.retrying = askRetry(e.plan.key);
    return slotAtOrAfter(e.plan.key, intervalOf(e), now);
  };

  /**
   * The run after one that was due at `prevDue`. On check_interval the object stays on (or returns
   * to) its grid, at least half an interval after the previous due time, so leaving retry never
   * causes an immediate extra run. On retry_interval it runs one retry interval after the last due
   * time. A slot already in the past is skipped, never made up: backpressure sheds load instead of
   * piling it up.
   */
  const nextDue = (e: Entry, prevDue: number, now: number): number => {
    const interval = intervalOf(e);
    const next = e.retrying
      ? prevDue + interval
      : slotAtOrAfter(e.plan.key, interval, prevDue + interval / 2);
    if (next >= now) return next;
    metrics.skipped(e.plan.type, Math.floor((now - next) / interval) + 1);
    return slotAtOrAfter(e.plan.key, interval, now);
  };

  const arm = (): void => {
    if (!running || inFlight >= concurrency) return; // a freed slot arms again
    const top = heap.peek();
    if (top === undefined || (timer !== undefined && timerAt <= top.due)) return;
    timer?.cancel();
    // Node turns a delay past 2^31-1 ms into 1 ms; an interval of weeks must not become a busy loop.
    const delay = Math.min(top.due - clock.now(), MAX_TIMER_MS);
    timerAt = clock.now() + delay;
    timer = clock.setTimer(delay, () => {
      timer = undefined;
      timerAt = Number.POSITIVE_INFINITY;
      pump();
    });
  };

  const pump = (): void => {
    if (!running) return;
    const now = clock.now();
    for (let started = 0; started < MAX_STARTS_PER_TURN; started++) {
      if (inFlight >= concurrency) break;
      const top = heap.peek();
      if (top === undefined || top.due > now) break;
      heap.pop();
      // Run-time switches (SetObjectFlags): where active checks are switched off, a due run is
      // skipped unless it is a forced rescheduled one (`top.force`, read before takeForced) or
      // checkNow's.
      const forcedRun = top.force && top.forcedAt <= top.due;
      const rescheduled = takeForced(top);
      if (switchedOff !== undefined && skipSwitchedOff(top, now, forcedRun)) continue;
      if (route !== undefined && routeRun(top, now, rescheduled)) continue;
      startRun(top, now, rescheduled);
    }
    if (overload.due(now)) sampleOverload(now);
    arm();
  };

  /**
   * Skips a due run of an object whose active checks an operator turned off: it is due again at
   * its next check_interval slot, without running, routing or counting as skipped by overload.
   */
  const skipSwitchedOff = (entry: Entry, now: number, forcedRun: boolean): boolean => {
    if (entry.forced === true) {
      entry.forced = false;
      return false;
    }
    if (forcedRun) return false;
    let off = false;
    try {
      off = switchedOff?.(entry.plan.key) === true;
    } catch (err) {
      log.warn("activeChecksDisabled threw; running the check", { key: entry.plan.key, err });
    }
    if (!off) return false;
    entry.retrying = false;
    schedule(entry, slotAtOrAfter(entry.plan.key, entry.plan.checkIntervalMs, now + 1));
    heap.push(entry);
    return true;
  };

  /** Offers a due run to `route`; when taken, the entry is due again at its next slot. */
  const routeRun = (entry: Entry, now: number, rescheduled: boolean): boolean => {
    let taken = false;
    try {
      taken = route?.(entry.plan, entry.due) === true;
    } catch (err) {
      log.warn("route threw; running the check here", { key: entry.plan.key, err });
    }
    if (!taken) return false;
    entry.lastDue = entry.due;
    const wasRetrying = entry.retrying;
    entry.retrying = askRetry(entry.plan.key);
    schedule(entry, afterRun(entry, entry.lastDue, rescheduled, wasRetrying, now));
    heap.push(entry);
    return true;
  };

  const startRun = (entry: Entry, now: number, rescheduled: boolean): void => {
    const plan = entry.plan;
    const run: Run = {
      entry,
      plan,
      due: entry.due,
      startedAt: now,
      controller: new AbortController(),
      rescheduled,
      timeout: undefined,
      grace: undefined,
      finished: false,
      settled: false,
      holdsSlot: true,
    };
    entry.run = run;
    entry.lastDue = entry.due;
    runs.add(run);
    inFlight++;
    overload.started();
    metrics.inFlight(inFlight);
    metrics.runStarted(now - run.due);
    run.timeout = clock.setTimer(plan.timeoutMs, () => onTimeout(run));
    const checker = checkers.get(plan.type);
    let p: Promise<CheckOutcome>;
    if (checker === undefined) {
      p = Promise.resolve(noCheckerOutcome(plan.type));
    } else {
      try {
        p = Promise.resolve(checker.run(plan.target, run.controller.signal));
      } catch (err) {
        p = Promise.reject(err);
      }
    }
    p.then(
      (o) => settle(run, o, undefined),
      (err: unknown) => settle(run, undefined, err),
    );
  };

  const settle = (run: Run, outcome: CheckOutcome | undefined, err: unknown): void => {
    run.settled = true;
    run.timeout?.cancel();
    run.grace?.cancel();
    if (!run.finished) {
      run.finished = true;
      let o = outcome;
      if (o === undefined || !isExitStatus(o.exitStatus)) {
        const why = o === undefined ? err : new Error(`invalid exit status ${String(o.exitStatus)}`);
        log.warn("checker broke its contract", { key: run.plan.key, type: run.plan.type, err: why });
        o = checkerFailedOutcome(run.plan.type, why);
      }
      complete(run, o, runResultOf(o.exitStatus));
    }
    releaseSlot(run);
  };

  const onTimeout = (run: Run): void => {
    run.timeout = undefined;
    if (run.finished) return;
    run.finished = true;
    const after = formatDuration(run.plan.timeoutMs);
    run.controller.abort(new DOMException(`check timed out after ${after}`, "TimeoutError"));
    complete(run, timeoutOutcome(timeoutStatus, run.plan.timeoutMs), "timeout");
    awaitSettle(run);
  };

  /** Gives an aborted checker `abortGraceMs` to settle before its slot is taken back. */
  const awaitSettle = (run: Run): void => {
    if (run.settled || run.grace !== undefined) return;
    run.grace = clock.setTimer(abortGraceMs, () => {
      run.grace = undefined;
      log.warn("checker did not settle after abort; reclaiming its slot", {
        key: run.plan.key,
        type: run.plan.type,
        graceMs: abortGraceMs,
      });
      releaseSlot(run);
    });
  };

  /** Submits the result of a run and puts its object back on the schedule. */
  const complete = (run: Run, o: CheckOutcome, result: RunResult): void => {
    const entry = run.entry;
    const plan = run.plan;
    if (entry.run === run) entry.run = undefined;
    const now = clock.now();
    const durationMs = now - run.startedAt;
    metrics.runFinished(plan.type, result, durationMs);
    // One literal per shape (no spread): this runs for every check.
    const r: CheckResult =
      plan.service === undefined
        ? {
            exitStatus: o.exitStatus,
            output: o.output,
            longOutput: o.longOutput,
            perfdata: o.perfdata,
            host: plan.host,
            checkedAt: run.startedAt,
            durationMs,
            source: "active",
          }
        : {
            exitStatus: o.exitStatus,
            output: o.output,
            longOutput: o.longOutput,
            perfdata: o.perfdata,
            host: plan.host,
            service: plan.service,
            checkedAt: run.startedAt,
            durationMs,
            source: "active",
          };
    try {
      submit(r);
    } catch (err) {
      log.warn("submit threw; result lost", { key: plan.key, err });
    }
    if (!running || !entry.live) return;
    const wasRetrying = entry.retrying;
    entry.retrying = askRetry(plan.key);
    schedule(entry, afterRun(entry, run.due, run.rescheduled, wasRetrying, now));
    heap.push(entry);
    arm();
  };

  const dropRun = (run: Run | undefined, reason: DropReason): void => {
    if (run === undefined) return;
    if (run.entry.run === run) run.entry.run = undefined;
    if (run.finished) return;
    run.finished = true;
    run.timeout?.cancel();
    run.timeout = undefined;
    const why =
      reason === "shutdown" ? "scheduler stopped" : `object ${reason === "removed" ? "removed" : "changed"}`;
    run.controller.abort(new DOMException(`check aborted: ${why}`, "AbortError"));
    awaitSettle(run);
  };

  const releaseSlot = (run: Run): void => {
    if (!run.holdsSlot) return;
    run.holdsSlot = false;
    run.grace?.cancel();
    runs.delete(run);
    inFlight--;
    metrics.inFlight(inFlight);
    if (stopped && runs.size === 0) resolveStop?.();
    // Through the timer, not a direct pump: a checker that settles at once would otherwise chain
    // run after run in microtasks and starve I/O and timers for as long as checks are overdue.
    arm();
  };

  /** Bumped by every apply: a diff made before the last apply describes a schedule that is gone. */
  let generation = 0;
  const prepared = new WeakMap<PreparedSchedule, { diff: ScheduleDiff<Entry>; generation: number }>();

  const diffNow = (config: Config): ScheduleDiff<Entry> => {
    const diff = emptyDiff<Entry>();
    for (const _ of diffSteps(config, entries, diff));
    return diff;
  };

  /** Makes the diff the schedule: what must happen at once, in config order. */
  const applyDiff = (diff: ScheduleDiff<Entry>): ApplySummary => {
    if (stopped) throw new Error("scheduler is stopped");
    generation++;
    const now = clock.now();
    let added = 0;
    let changed = 0;
    let unchanged = 0;
    for (const key of diff.duplicates) log.warn("two objects share one key; scheduling the first", { key });
    const { plans, old: olds, same } = diff;
    // Objects never checked run their first check soon, spread over a window sized by their number.
    // Not in a first apply that catches up (a server taking over from a dead leader, whose log
    // lacks the leader's results): that keeps to the grid, so that its jobs de-duplicate.
    const fresh: boolean[] = [];
    let freshCount = 0;
    if (isNew !== undefined && !(catchUpMs > 0 && generation === 1)) {
      for (let i = 0; i < plans.length; i++) {
        const f = !(olds[i] !== undefined && same[i]) && askNew(plans[i]!.key);
        fresh[i] = f;
        if (f) freshCount++;
      }
    }
    const window = firstRunWindowMs(freshCount);
    for (let i = 0; i < plans.length; i++) {
      const plan = plans[i]!;
      const old = olds[i];
      if (old !== undefined && same[i]) {
        old.plan = plan;
        unchanged++;
        continue;
      }
      // A rescheduled run still pending (or aborted by the change) stays pending.
      let forcedAt = Number.NaN;
      let force = false;
      if (old !== undefined) {
        if (old.run !== undefined && !old.run.finished && old.run.rescheduled) forcedAt = now;
        if (!Number.isNaN(old.forcedAt)) forcedAt = Number.isNaN(forcedAt) ? old.forcedAt : forcedAt;
        force = old.force || (old.run?.rescheduled ?? false);
        dropRun(old.run, "changed");
        heap.remove(old);
        old.live = false; // a late result of the old run must not touch the new entry
        changed++;
      } else {
        added++;
      }
      const entry: Entry = {
        plan,
        lastDue: Number.NaN,
        retrying: false,
        run: undefined,
        live: true,
        due: 0,
        gridDue: 0,
        forcedAt,
        force: Number.isNaN(forcedAt) ? false : force,
        heapIndex: -1,
        heapSeq: 0,
      };
      schedule(
        entry,
        fresh[i] === true ? firstRunDue(plan.key, window, intervalOf(entry), now) : slotFromNow(entry, now),
      );
      if (catchUpMs > 0 && generation === 1 && fresh[i] !== true) {
        // The newest slot that passed, if it is in the window: left in the past (the run starts at
        // once) so that the next run keeps to the grid. The newest, not the oldest: a run the dead
        // leader did hand out carries the slot's due time and is de-duplicated by it, so catching
        // up an older slot would re-send a run already out and still skip the one it missed.
        const last = slotAtOrBefore(plan.key, intervalOf(entry), now);
        if (last >= now - catchUpMs) schedule(entry, last);
      }
      entries.set(plan.key, entry);
      heap.push(entry);
    }
    for (const entry of diff.removed) {
      dropRun(entry.run, "removed");
      heap.remove(entry);
      entry.live = false;
      entries.delete(entry.plan.key);
    }
    for (const type of diff.types) {
      if (!checkers.has(type))
        log.warn("no checker for a check type in use; its runs report UNKNOWN", { type });
    }
    metrics.scheduled(entries.size);
    demandPerSecond = 0;
    for (const e of entries.values()) demandPerSecond += 1000 / e.plan.checkIntervalMs;
    arm();
    return { added, changed, removed: diff.removed.length, unchanged };
  };

  const prepareConfig = async (config: Config): Promise<PreparedSchedule> => {
    const at = generation;
    const diff = emptyDiff<Entry>();
    let objects = 0;
    for (const n of diffSteps(config, entries, diff)) {
      objects += n;
      await diffStep(n);
    }
    const p: PreparedSchedule = { config, objects };
    prepared.set(p, { diff, generation: at });
    return p;
  };

  return {
    applyConfig: (config) => applyDiff(diffNow(config)),
    prepareConfig,
    applyPrepared(p) {
      const made = prepared.get(p);
      prepared.delete(p);
      // A diff made before another apply would undo or repeat it: plan again, in one turn.
      return applyDiff(made !== undefined && made.generation === generation ? made.diff : diffNow(p.config));
    },
    start() {
      if (stopped) throw new Error("scheduler is stopped");
      if (running) return;
      running = true;
      // Slots that passed between applyConfig and start would all fall due at once: move objects
      // that never ran to their next slot instead, so a slow start-up does not become a burst.
      const now = clock.now();
      // First runs of objects never checked are spread again from now, as applyConfig spread them.
      const late = heap
        .items()
        .filter((e) => e.gridDue < now - catchUpMs && Number.isNaN(e.lastDue) && Number.isNaN(e.forcedAt));
      const spread = isNew !== undefined && catchUpMs === 0;
      const window = firstRunWindowMs(spread ? late.length : 0);
      for (const e of late) {
        heap.remove(e);
        const first = spread && askNew(e.plan.key);
        schedule(
          e,
          first
            ? firstRunDue(e.plan.key, window, intervalOf(e), now)
            : slotAtOrAfter(e.plan.key, intervalOf(e), now),
        );
        heap.push(e);
      }
      pump();
    },
    stop() {
      if (stopPromise !== undefined) return stopPromise;
      running = false;
      stopped = true;
      timer?.cancel();
      timer = undefined;
      stopPromise = new Promise<void>((resolve) => {
        resolveStop = resolve;
      });
      for (const run of runs) dropRun(run, "shutdown");
      for (const run of runs) awaitSettle(run);
      if (runs.size === 0) resolveStop?.();
      return stopPromise;
    },
    resultApplied(key) {
      const entry = entries.get(key);
      if (entry === undefined || entry.heapIndex < 0 || Number.isNaN(entry.lastDue)) return;
      const retrying = askRetry(key);
      if (retrying === entry.retrying) return;
      entry.retrying = retrying;
      heap.remove(entry);
      schedule(entry, nextDue(entry, entry.lastDue, clock.now()));
      heap.push(entry);
      arm();
    },
    checkNow(key) {
      const entry = entries.get(key);
      if (entry === undefined || entry.heapIndex < 0 || !running) return false;
      heap.remove(entry);
      entry.forcedAt = Number.NaN;
      entry.force = false;
      entry.forced = true;
      schedule(entry, clock.now());
      heap.push(entry);
      pump();
      return true;
    },
    reschedule(key, at, force) {
      const entry = entries.get(key);
      if (entry === undefined || stopped) return false;
      // A newer reschedule replaces one still pending. While a run is in flight, the entry is not
      // queued: the rescheduled run follows it (complete() puts the entry back at forcedAt).
      const queued = entry.heapIndex >= 0;
      if (queued) heap.remove(entry);
      // Never in the past: a run rescheduled before a restart counts its lateness from now.
      entry.forcedAt = Math.max(at, clock.now());
      entry.force = force;
      if (queued) {
        schedule(entry, entry.gridDue);
        heap.push(entry);
      }
      arm();
      return true;
    },
    nextRunAt(key) {
      const entry = entries.get(key);
      return entry === undefined || entry.heapIndex < 0 ? undefined : entry.due;
    },
    get size() {
      return entries.size;
    },
    get inFlight() {
      return inFlight;
    },
  };
}
