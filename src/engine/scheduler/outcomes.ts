import type { CheckOutcome } from "../../model/check-result.js";
import type { CheckType } from "../../model/config.js";
import type { ExitStatus } from "../../model/state.js";
import type { RunResult } from "./metrics.js";

/** The status word a plugin prints first for each exit status. */
const STATUS_WORDS = ["OK", "WARNING", "CRITICAL", "UNKNOWN"] as const;

/** `10000` → `10s`, `1500` → `1.5s`, `250` → `250ms`. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${Number((ms / 1000).toFixed(3))}s`;
}

/**
 * The outcome recorded when a run exceeds its `timeout`. CRITICAL by default, as Nagios 4's
 * `service_check_timeout_state`; a host check maps it to DOWN like any other exit status 2.
 */
export function timeoutOutcome(status: ExitStatus, timeoutMs: number): CheckOutcome {
  return outcome(status, `check timed out after ${formatDuration(timeoutMs)}`);
}

/** The outcome recorded when no checker is registered for a check type the config uses. */
export function noCheckerOutcome(type: CheckType): CheckOutcome {
  return outcome(3, `no checker is available for check type "${type}"`);
}

/** The outcome recorded when a checker broke its contract and threw instead of returning data. */
export function checkerFailedOutcome(type: CheckType, err: unknown): CheckOutcome {
  const why = err instanceof Error ? err.message : String(err);
  return outcome(3, `${type} checker failed: ${why}`);
}

function outcome(status: ExitStatus, text: string): CheckOutcome {
  return { exitStatus: status, output: `${STATUS_WORDS[status]} - ${text}`, longOutput: "", perfdata: [] };
}

/** The metric label for a finished run. */
export function runResultOf(status: ExitStatus): RunResult {
  switch (status) {
    case 0:
      return "ok";
    case 1:
      return "warning";
    case 2:
      return "critical";
    case 3:
      return "unknown";
    default: {
      const never: never = status;
      return never;
    }
  }
}
