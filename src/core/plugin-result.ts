import { parsePluginOutput } from "../checks/nagios/index.js";
import type { CheckResult } from "../model/check-result.js";
import type { Command } from "../model/commands.js";

/**
 * A check result submitted with the plugin's text as received (`result.output`), not yet split into
 * output, long output and perfdata. The API submits passive results this way so that parsing —
 * a third of the reader thread's work per result — happens on the writer's thread, which parses
 * each logged one before applying it (`preparePluginResult`), live and on every replay alike.
 * Parsing only shapes what events and reads show; the engine's state does not depend on it.
 */
export interface PluginResultInput {
  readonly type: "ProcessCheckResult";
  /** The output is still to be parsed. */
  readonly parse: true;
  readonly result: Omit<CheckResult, "longOutput" | "perfdata">;
}

/** The command to apply for a logged one: an unparsed result parsed, anything else as is. */
export function preparePluginResult(logged: Command): Command {
  if (logged.type !== "ProcessCheckResult" || (logged as { parse?: unknown }).parse !== true) return logged;
  const r = logged.result;
  const { output, longOutput, perfdata } = parsePluginOutput(r.output);
  return {
    type: "ProcessCheckResult",
    at: logged.at,
    result: {
      host: r.host,
      ...(r.service === undefined ? {} : { service: r.service }),
      exitStatus: r.exitStatus,
      output,
      longOutput,
      perfdata,
      checkedAt: r.checkedAt,
      durationMs: r.durationMs,
      source: r.source,
    },
  };
}
