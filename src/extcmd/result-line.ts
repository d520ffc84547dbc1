import type { PluginResultInput } from "../core/plugin-result.js";
import { type ExitStatus, passiveHostStatus } from "../model/state.js";

/** The check-result lines, the ones the reader gathers into batches. */
export type ResultLineName = "PROCESS_SERVICE_CHECK_RESULT" | "PROCESS_HOST_CHECK_RESULT";

const SERVICE = "PROCESS_SERVICE_CHECK_RESULT;";
const HOST = "PROCESS_HOST_CHECK_RESULT;";

/** A check-result line read: its command, and the return code it sent (a host's is its state). */
export interface FastResult {
  readonly name: ResultLineName;
  readonly command: PluginResultInput;
  readonly sent: number;
}

/**
 * Reads a check-result line in its common form — `[digits] NAME;host;[service;]digit;output`, one
 * space, no backslash escape in the output — with a few indexOf calls, without a regular
 * expression or an argument array: the command file's hot path, one call per line at hundreds of
 * thousands of lines per second. The command is exactly what parseCommandLine makes of the line.
 * Undefined for any other line (another command, another form, a bad one): parseCommandLine's.
 */
export function parseResultLine(line: string): FastResult | undefined {
  if (line.charCodeAt(0) !== 0x5b) return undefined; // [
  const close = line.indexOf("] ", 1);
  // At most 11 digits: the product below stays exact, as Number() reads it.
  if (close < 2 || close > 12) return undefined;
  let seconds = 0;
  for (let i = 1; i < close; i++) {
    const c = line.charCodeAt(i) - 0x30;
    if (c < 0 || c > 9) return undefined;
    seconds = seconds * 10 + c;
  }
  const start = close + 2;
  const svc = line.startsWith(SERVICE, start);
  if (!svc && !line.startsWith(HOST, start)) return undefined;
  let p = start + (svc ? SERVICE.length : HOST.length);
  const hostEnd = line.indexOf(";", p);
  if (hostEnd <= p) return undefined;
  const host = line.slice(p, hostEnd);
  p = hostEnd + 1;
  let service: string | undefined;
  if (svc) {
    const serviceEnd = line.indexOf(";", p);
    if (serviceEnd <= p) return undefined;
    service = line.slice(p, serviceEnd);
    p = serviceEnd + 1;
  }
  // One digit 0-3 and its `;`: any other return code takes the slow path (and its refusal).
  const code = line.charCodeAt(p) - 0x30;
  if (code < 0 || code > 3 || line.charCodeAt(p + 1) !== 0x3b) return undefined;
  const output = line.slice(p + 2);
  // Escapes (`\n`, `\\`) are the slow path's.
  if (output.includes("\\")) return undefined;
  const at = seconds * 1000;
  return {
    name: svc ? "PROCESS_SERVICE_CHECK_RESULT" : "PROCESS_HOST_CHECK_RESULT",
    sent: code,
    command: {
      type: "ProcessCheckResult",
      parse: true,
      result: {
        host,
        service,
        // A host's return_code is its state (0 UP, 1 DOWN, 2 UNREACHABLE), as Nagios reads it.
        exitStatus: (svc ? code : passiveHostStatus(code)) as ExitStatus,
        output,
        checkedAt: at,
        durationMs: 0,
        source: "passive",
      },
    },
  };
}
