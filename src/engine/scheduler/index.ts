/**
 * The active check scheduler. It runs every host and service check of the applied config in
 * process, on `check_interval` (on `retry_interval` while the object is in a soft non-OK state),
 * bounded by `timeout`, at most `concurrency` at a time, and hands each result to the same
 * pipeline passive results take. First runs are spread over the interval by a hash of the object
 * key, a reload keeps every unchanged check's next run, and one timer over a binary heap drives
 * the whole schedule, so 100,000 objects cost one pending timer. Time comes only from the injected
 * clock; checks run only through the `Checker` seam. See docs/scheduling.md.
 */

export type { ApplySummary, PreparedSchedule, Scheduler, SchedulerLogger, SchedulerOptions } from "./api.js";
export type { DueHeap, HeapItem } from "./due-heap.js";
export { createDueHeap } from "./due-heap.js";
export type { RunResult } from "./metrics.js";
export { formatDuration } from "./outcomes.js";
export type { PlannedCheck } from "./plan.js";
export { MIN_INTERVAL_MS, planHostCheck, planServiceCheck, sameDefinition } from "./plan.js";
export { DIFF_STEP_OBJECTS } from "./schedule-diff.js";
export { createScheduler, MAX_STARTS_PER_TURN } from "./scheduler.js";
export { phaseOf, slotAfter, slotAtOrAfter, slotAtOrBefore } from "./slots.js";
