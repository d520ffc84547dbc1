import { availableParallelism } from "node:os";
import type { CheckOutcome } from "../../model/check-result.js";
import type { Checker } from "../../model/checker.js";
import type { WasmProbe } from "../../model/config.js";
import { displayName, pluginOutcome } from "../process/run-plugin.js";
import { DEFAULT_OUTPUT_CAP } from "../process/run-process.js";
import { WASM_PAGE } from "./memory-cap.js";
import { createModuleCache } from "./module-cache.js";
import { WasmWorkerPool } from "./worker-pool.js";

export interface WasmCheckerOptions {
  /** Worker threads running modules at once; default min(4, cores). */
  readonly workers?: number;
  /** The largest linear memory a module may have, in MiB; default 256. */
  readonly maxMemoryMb?: number;
  /** Bytes of stdout (and of stderr) kept; default 64 KiB, as for plugins. */
  readonly outputCap?: number;
}

/** The wasm check type, with the worker pool it owns. */
export interface WasmChecker extends Checker<WasmProbe> {
  /** Terminates the workers. Runs after close settle as UNKNOWN. */
  close(): Promise<void>;
}

function unknown(output: string, longOutput = ""): CheckOutcome {
  return { exitStatus: 3, output, longOutput, perfdata: [] };
}

/**
 * The `wasm` check: runs a WASI preview1 command module (`_start`) with `args`, in a worker thread,
 * with no filesystem, no network and no environment. Its stdout is plugin output (status line, long
 * output, perfdata) and its proc_exit code is the status, exactly as for a Nagios plugin. The
 * worker is terminated at `timeout`, so an endless loop costs one worker, never the engine. Modules
 * are compiled once and cached by path and mtime. docs/wasm.md says how to write one.
 */
export function createWasmChecker(options: WasmCheckerOptions = {}): WasmChecker {
  const pool = new WasmWorkerPool(options.workers ?? Math.min(4, availableParallelism()));
  const cache = createModuleCache(Math.floor(((options.maxMemoryMb ?? 256) * 2 ** 20) / WASM_PAGE));
  const cap = options.outputCap ?? DEFAULT_OUTPUT_CAP;
  return {
    type: "wasm",
    close: () => pool.close(),
    async run(target, signal) {
      const { module: path, args = [], timeoutMs } = target.probe;
      if (typeof path !== "string" || path === "") return unknown("wasm check: no module path given");
      const name = displayName(path);
      if (!Array.isArray(args) || args.some((a) => typeof a !== "string")) {
        return unknown(`wasm ${name}: args must be a list of strings`);
      }
      if (signal.aborted) return unknown(`wasm ${name} was aborted`);
      let module: Awaited<ReturnType<typeof cache.get>>;
      try {
        module = await cache.get(path);
      } catch (e) {
        return unknown(
          `wasm ${name}: cannot load module: ${displayName(e instanceof Error ? e.message : String(e))}`,
        );
      }
      const o = await pool.run(
        module,
        [path, ...args],
        cap,
        typeof timeoutMs === "number" ? timeoutMs : 0,
        signal,
      );
      switch (o.kind) {
        case "done": {
          const r = o.result;
          if (r.end.kind === "error") {
            return unknown(`wasm ${name}: ${displayName(r.end.message)}`, (r.stdout || r.stderr).trim());
          }
          return pluginOutcome(`wasm ${name}`, {
            end: { kind: "exited", code: r.end.code },
            stdout: r.stdout,
            stderr: r.stderr,
            truncated: r.truncated,
            durationMs: 0,
          });
        }
        case "timeout":
          return unknown(`wasm ${name} timed out after ${o.afterMs / 1000}s; its worker was terminated`);
        case "aborted":
          return unknown(`wasm ${name} was aborted; its worker was terminated`);
        case "crashed":
          return unknown(`wasm ${name}: ${displayName(o.message)}`);
        default: {
          const never: never = o;
          return never;
        }
      }
    },
  };
}
