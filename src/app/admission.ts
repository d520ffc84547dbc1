/**
 * Admission for the evaluation of admin-submitted documents (ValidateConfig, PlanConfig,
 * ApplyConfig): one runs at a time, up to `queue` more wait their turn in order, and any other is
 * refused at once. Each evaluation is bounded by its document's budget (config/eval-budget.ts),
 * so a waiting one waits for at most `queue` bounded evaluations, and a burst of hostile documents
 * cannot multiply the memory one may take (docs/api.md: `resource_exhausted`).
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

/**
 * Waiting places by default: the dashboard validates, plans and applies one after the other, and
 * a few admins (or one script's parallel calls) fit; a waiting request holds only its text.
 */
export const ADMISSION_QUEUE = 8;

/** An admission with `queue` waiting places (default ADMISSION_QUEUE). */
export function createAdmission(queue = ADMISSION_QUEUE): Admission {
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
