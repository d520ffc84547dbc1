import type { CheckOutcome } from "../../model/check-result.js";
import type { Checker } from "../../model/checker.js";
import type { LegacyProbe } from "../../model/config.js";
import { displayName, runPlugin } from "../process/run-plugin.js";

function unknown(output: string): CheckOutcome {
  return { exitStatus: 3, output, longOutput: "", perfdata: [] };
}

/**
 * The `legacy` check: runs a Nagios plugin at `path` with `args`, exactly as given (no shell, no macro
 * expansion), under the shared runner's rules: own process group killed at `timeout` or abort, clean
 * environment, stdout capped at 64 KiB.
 */
export function createLegacyChecker(): Checker<LegacyProbe> {
  return {
    type: "legacy",
    async run(target, signal) {
      const { path, args = [], timeoutMs } = target.probe;
      // The loader guarantees these shapes; a hand-built target may not, and run never rejects.
      if (typeof path !== "string" || path === "" || path.includes("\0")) {
        return unknown(`legacy check: invalid plugin path ${JSON.stringify(displayName(path))}`);
      }
      if (!Array.isArray(args) || args.some((a) => typeof a !== "string" || a.includes("\0"))) {
        return unknown(`legacy check ${displayName(path)}: args must be a list of strings without NUL`);
      }
      return runPlugin(path, { file: path, args, timeoutMs }, signal);
    },
  };
}
