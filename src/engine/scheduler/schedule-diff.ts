/**
 * What applying a config would change in the schedule, worked out without changing it. Planning
 * and comparing every object is the bulk of a reload's cost to the scheduler (about 200 ms at
 * 55,000 objects, mostly `sameDefinition`), so it is done here in steps of a bounded number of
 * objects: `prepareConfig` yields to the event loop between steps, and the switch to the new
 * schedule is left with only the work that must happen at once. `applyConfig` takes the same steps
 * without yielding, so both paths schedule exactly alike.
 */

import type { CheckType, Config } from "../../model/config.js";
import { type PlannedCheck, planHostCheck, planServiceCheck, sameDefinition } from "./plan.js";

/**
 * The most objects (hosts, services and schedule entries looked at) one step of a diff handles
 * before it yields: some 3–8 ms of main-thread work on the shared development machine.
 */
export const DIFF_STEP_OBJECTS = 2_000;

/** What the diff needs of a schedule entry. */
export interface DiffEntry {
  readonly plan: PlannedCheck;
}

/** The difference between a schedule and a config, as found by `diffSteps`. */
export interface ScheduleDiff<E extends DiffEntry> {
  /** The config's active checks in config order; of objects sharing a key, only the first. */
  readonly plans: PlannedCheck[];
  /** Per plan, the entry that had its key when the diff was made. */
  readonly old: (E | undefined)[];
  /** Per plan, whether that entry runs the same way, so it keeps its slot. */
  readonly same: boolean[];
  /** Entries whose key the config no longer has, in the schedule's iteration order. */
  readonly removed: E[];
  /** Each key a later object shared with an earlier one, once per later object. */
  readonly duplicates: string[];
  /** The check types the plans use, in order of first use. */
  readonly types: Set<CheckType>;
}

/** An empty diff, for `diffSteps` to fill. */
export function emptyDiff<E extends DiffEntry>(): ScheduleDiff<E> {
  return { plans: [], old: [], same: [], removed: [], duplicates: [], types: new Set() };
}

/**
 * Fills `out` with the difference between `entries` (the schedule, keyed by object key) and
 * `config`, yielding after every `stepObjects` objects the number handled in that step (and at the
 * end the rest). `entries` must not change while the steps run: a caller that lets other work run
 * between steps must check that nothing was applied meanwhile before using the diff.
 */
export function* diffSteps<E extends DiffEntry>(
  config: Config,
  entries: ReadonlyMap<string, E>,
  out: ScheduleDiff<E>,
  stepObjects = DIFF_STEP_OBJECTS,
): Generator<number, void, void> {
  const seen = new Set<string>();
  let n = 0;
  const add = (plan: PlannedCheck | undefined): void => {
    if (plan === undefined) return;
    if (seen.has(plan.key)) {
      out.duplicates.push(plan.key);
      return;
    }
    seen.add(plan.key);
    out.types.add(plan.type);
    const old = entries.get(plan.key);
    out.plans.push(plan);
    out.old.push(old);
    out.same.push(old !== undefined && sameDefinition(old.plan, plan));
  };
  for (const host of config.hosts.values()) {
    add(planHostCheck(config, host));
    if (++n >= stepObjects) {
      yield n;
      n = 0;
    }
    for (const service of host.services.values()) {
      add(planServiceCheck(config, host, service));
      if (++n >= stepObjects) {
        yield n;
        n = 0;
      }
    }
  }
  for (const [key, entry] of entries) {
    if (!seen.has(key)) out.removed.push(entry);
    if (++n >= stepObjects) {
      yield n;
      n = 0;
    }
  }
  if (n > 0) yield n;
}
