import type { CheckResult, PerfDatum } from "../model/check-result.js";
import type { Command } from "../model/commands.js";
import type { ExitStatus } from "../model/state.js";
import { parsePluginOutput } from "../nagios/index.js";
import type { SubmittedCommand } from "./validate.js";

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

/**
 * How a passive unparsed result (duration 0, as the API submits them) is logged: a five-element
 * array instead of an object with named fields — a third of the bytes, and about a third of the
 * cost to serialize on the reader's thread and to parse on the writer's. A batch decoded on the
 * writer's thread (src/core/encoded-results.ts) is built in this form directly.
 */
export type CompactResult = [
  host: string,
  service: string | null,
  exitStatus: number,
  output: string,
  checkedAt: number,
];

/**
 * A compact result whose plugin output was parsed already, where it was decoded (the writer's
 * decoding thread, src/core/encoded-results.ts): the output's text is dropped (""), its parts
 * follow. Never logged — the log keeps the CompactResult — only applied.
 */
export type ParsedCompactResult = [
  host: string,
  service: string | null,
  exitStatus: number,
  text: "",
  checkedAt: number,
  output: string,
  longOutput: string,
  perfdata: PerfDatum[],
];

/** What Core logs for a submitted command: the compact form where it applies, else the command. */
export function loggedForm(c: SubmittedCommand): unknown {
  if (c.type !== "ProcessCheckResult" || !("parse" in c) || c.parse !== true) return c;
  const r = c.result;
  if (r.durationMs !== 0 || r.source !== "passive") return c;
  return [r.host, r.service ?? null, r.exitStatus, r.output, r.checkedAt] satisfies CompactResult;
}

/**
 * The command to apply for a logged element: a compact or unparsed result expanded and parsed,
 * anything else as is; `at` for elements that carry none (the batch's time).
 */
export function preparePluginResult(logged: unknown, at: number): Command {
  if (Array.isArray(logged)) {
    // The hot path (every passive result): the command built at once, with no object in between.
    const [host, service, exitStatus, text, checkedAt] = logged as CompactResult;
    const { output, longOutput, perfdata } =
      logged.length === 8 ? parsedParts(logged as ParsedCompactResult) : parsePluginOutput(text);
    const status = exitStatus as ExitStatus;
    const result: CheckResult =
      service === null
        ? {
            host,
            exitStatus: status,
            output,
            longOutput,
            perfdata,
            checkedAt,
            durationMs: 0,
            source: "passive",
          }
        : {
            host,
            service,
            exitStatus: status,
            output,
            longOutput,
            perfdata,
            checkedAt,
            durationMs: 0,
            source: "passive",
          };
    return { type: "ProcessCheckResult", at, result };
  }
  const c = logged as Command & { parse?: unknown };
  const stamped: Command = c.at === undefined ? { ...c, at } : c;
  if (stamped.type !== "ProcessCheckResult" || c.parse !== true) return stamped;
  const { longOutput: _l, perfdata: _p, ...r } = stamped.result;
  return parsed(stamped.at, r);
}

function parsedParts(r: ParsedCompactResult): { output: string; longOutput: string; perfdata: PerfDatum[] } {
  return { output: r[5], longOutput: r[6], perfdata: r[7] };
}

function parsed(at: number, r: PluginResultInput["result"]): Command {
  const { output, longOutput, perfdata } = parsePluginOutput(r.output);
  return {
    type: "ProcessCheckResult",
    at,
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
