import { capText } from "../audit/index.js";
import type { Logger } from "../model/logger.js";

/** How many refused lines are logged one by one in each window; the rest are counted. */
export const REFUSALS_LOGGED = 20;
/** The window, in milliseconds. */
export const REFUSAL_WINDOW_MS = 10_000;

/** Logs refused lines, at most REFUSALS_LOGGED per window of REFUSAL_WINDOW_MS. */
export interface RefusalLog {
  /** A refused line: logged, or counted when this window's share is spent. */
  refused(command: string, reason: string): void;
  /** Logs how many went unlogged, if any (the window's end, or the reader's stop). */
  flush(): void;
}

/**
 * A sender writing a flood of bad lines (results for objects that are not configured, a relay
 * speaking another dialect) must not flood the log: each line is still counted
 * (lookout_command_file_lines_total) and audited, and the first REFUSALS_LOGGED of each window are
 * logged with their reason; then one line says how many more were refused.
 */
export function createRefusalLog(logger: Logger, now: () => number): RefusalLog {
  let windowStart = Number.NEGATIVE_INFINITY;
  let logged = 0;
  let suppressed = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (suppressed === 0) return;
    logger.warn("more external commands refused, not logged one by one", {
      refused: suppressed,
      windowSeconds: REFUSAL_WINDOW_MS / 1000,
    });
    suppressed = 0;
  };
  return {
    refused(command, reason) {
      const t = now();
      if (t - windowStart >= REFUSAL_WINDOW_MS) {
        flush();
        windowStart = t;
        logged = 0;
      }
      if (logged < REFUSALS_LOGGED) {
        logged++;
        // A reason may quote what the line held: logged capped, as its audit record is.
        logger.warn("external command refused", { command, reason: capText(reason) });
        return;
      }
      suppressed++;
      if (timer === undefined) {
        timer = setTimeout(flush, Math.max(0, windowStart + REFUSAL_WINDOW_MS - t));
        timer.unref();
      }
    },
    flush,
  };
}
