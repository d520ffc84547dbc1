import type { PerfDatum } from "../model/check-result.js";
import { parsePerfdata } from "./perfdata.js";

/** Plugin output split the way Nagios splits it. */
export interface PluginOutput {
  /** The first line, before any `|`, trimmed. */
  readonly output: string;
  /** The following lines up to the first later `|`, joined with "\n"; "" when none. */
  readonly longOutput: string;
  readonly perfdata: PerfDatum[];
}

/**
 * Splits plugin output (Nagios plugin API, "Plugin Output Spec"):
 *
 * ```
 * TEXT OUTPUT | OPTIONAL PERFDATA
 * LONG TEXT LINE 1
 * LONG TEXT LINE N | PERFDATA LINE 2
 * PERFDATA LINE 3
 * ```
 *
 * Perfdata follows the first `|` on the first line and the first `|` on a later line; once that later
 * `|` is seen, every following line is perfdata. Never throws; bad perfdata items are skipped. The
 * single parser for legacy, command and passive results.
 */
export function parsePluginOutput(text: string): PluginOutput {
  const lines = text.split(/\r\n|\r|\n/);
  // Trailing newlines are the end of output, not empty long-output lines.
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === "") lines.pop();
  const first = lines[0] ?? "";
  const perfParts: string[] = [];
  const bar = first.indexOf("|");
  const output = (bar < 0 ? first : first.slice(0, bar)).trim();
  if (bar >= 0) perfParts.push(first.slice(bar + 1));
  const long: string[] = [];
  let inPerf = false;
  for (const line of lines.slice(1)) {
    if (inPerf) {
      perfParts.push(line);
      continue;
    }
    const b = line.indexOf("|");
    if (b < 0) {
      long.push(line);
      continue;
    }
    const before = line.slice(0, b);
    if (before.trim() !== "") long.push(before.trimEnd());
    perfParts.push(line.slice(b + 1));
    inPerf = true;
  }
  return { output, longOutput: long.join("\n"), perfdata: perfParts.flatMap((p) => parsePerfdata(p)) };
}
