import type { CheckOutcome } from "../../model/check-result.js";
import { isExitStatus } from "../../model/state.js";
import { parsePluginOutput } from "../../nagios/plugin-output.js";
import { type ProcessResult, type ProcessSpec, runProcess } from "./run-process.js";

/** Appended to the long output when a plugin printed more than the cap. */
export const TRUNCATION_MARKER = "[output truncated by Lookout]";

/**
 * A plugin name fit for a one-line output: control characters and the perfdata bar replaced, long
 * paths shortened.
 */
export function displayName(name: unknown): string {
  const s = typeof name === "string" ? name : String(name);
  const clean = s.replaceAll(/[\u0000-\u001f\u007f|]/g, "?");
  return clean.length > 200 ? `${clean.slice(0, 197)}...` : clean === "" ? "(empty)" : clean;
}

function seconds(ms: number): string {
  return `${Math.round(ms) / 1000}s`;
}

/**
 * Turns a finished plugin process into a Nagios outcome. Exit 0–3 is the status and stdout is parsed
 * as plugin output (stderr stands in when stdout is empty). Anything else is UNKNOWN with an output
 * that says what happened and the plugin's own text as long output, as Nagios does for "return code
 * out of bounds".
 */
export function pluginOutcome(rawName: string, r: ProcessResult): CheckOutcome {
  const name = displayName(rawName);
  const text = r.stdout.trim() !== "" ? r.stdout : r.stderr;
  const parsed = parsePluginOutput(text);
  const withMarker = (long: string): string =>
    r.truncated ? (long === "" ? TRUNCATION_MARKER : `${long}\n${TRUNCATION_MARKER}`) : long;
  const unknown = (output: string): CheckOutcome => {
    const raw = text.trim();
    return { exitStatus: 3, output, longOutput: withMarker(raw), perfdata: [] };
  };
  const end = r.end;
  switch (end.kind) {
    case "exited":
      if (isExitStatus(end.code)) {
        return {
          exitStatus: end.code,
          output: parsed.output === "" ? `(${name} returned no output)` : parsed.output,
          longOutput: withMarker(parsed.longOutput),
          perfdata: parsed.perfdata,
        };
      }
      return unknown(
        end.code === 127
          ? `${name}: return code 127 is out of bounds (plugin not found, or its interpreter is missing)`
          : end.code === 126
            ? `${name}: return code 126 is out of bounds (plugin not executable)`
            : `${name}: return code ${end.code} is out of bounds`,
      );
    case "signaled":
      return unknown(`${name} was killed by signal ${end.signal}`);
    case "timeout":
      return unknown(`${name} timed out after ${seconds(end.afterMs)}; its process group was killed`);
    case "aborted":
      return unknown(`${name} was aborted; its process group was killed`);
    case "spawn-error":
      return unknown(`${name} could not be started: ${end.message}`);
    default: {
      const never: never = end;
      return never;
    }
  }
}

/** Runs a plugin (no shell, own process group, clean env, capped output) and returns its outcome. */
export async function runPlugin(name: string, spec: ProcessSpec, signal: AbortSignal): Promise<CheckOutcome> {
  return pluginOutcome(name, await runProcess(spec, signal));
}
