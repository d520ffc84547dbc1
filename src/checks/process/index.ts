/**
 * The shared child-process runner for checks (and, later, command notifications and exec sinks): no
 * shell, its own process group killed whole on timeout or abort, capped output, and a clean
 * environment. `runPlugin` adds the Nagios plugin contract on top (exit code → status, output parsing).
 */
export { pluginOutcome, runPlugin, TRUNCATION_MARKER } from "./run-plugin.js";
export {
  cleanEnv,
  DEFAULT_OUTPUT_CAP,
  type ProcessEnd,
  type ProcessResult,
  type ProcessSpec,
  runProcess,
} from "./run-process.js";
