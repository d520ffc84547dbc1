/**
 * Admission for the evaluation of admin-submitted documents (ValidateConfig, PlanConfig,
 * ApplyConfig): one runs at a time, one more may wait for it, and any other is refused at once.
 * Each evaluation is bounded by its document's budget (config/eval-budget.ts), so the one that
 * waits waits for at most one bounded evaluation; refusing the rest keeps a burst of hostile
 * documents from multiplying the memory one may take (docs/api.md: `resource_exhausted`).
 */

/** Thrown by {@link Admission.run} when the evaluation is not admitted. */
export class BusyError extends Error {
  override readonly name = "BusyError";
}

/** One evaluation at a time, with a bounded queue. */
export interface Admission {
  /**
   * Runs `fn` once it is admitted: at once when nothing runs, after the running one when fewer
   * than `queue` wait; otherwise rejects with BusyError without running it.
   */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Evaluations running (0 or 1) and waiting now. */
  readonly load: { readonly running: number; readonly waiting: number };
}

/** An admission with `queue` waiting places (default 1). */
export function createAdmission(queue = 1): Admission {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = (): void => {
    const next = waiting.shift();
    if (next === undefined) running = 0;
    else next(); // the slot passes to the next one as is
  };
  return {
    async run(fn) {
      if (running > 0) {
        if (waiting.length >= queue) {
          throw new BusyError("another configuration document is being evaluated: retry when it is done");
        }
        await new Promise<void>((resolve) => waiting.push(resolve));
      } else {
        running = 1;
      }
      try {
        return await fn();
      } finally {
        release();
      }
    },
    get load() {
      return { running, waiting: waiting.length };
    },
  };
}
