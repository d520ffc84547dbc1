import { setFlagsFromString } from "node:v8";

/**
 * The V8 flag that makes a wasm worker stoppable. With dynamic tiering (V8's default) a module
 * starts in Liftoff, the baseline compiler, and a function already running never leaves it. In
 * Liftoff code, a loop that grows its memory (the memory hog of the fault suite, a page at a time)
 * never sees the termination request of `worker.terminate()`: the worker runs on until the module
 * ends by itself (a minute to reach the 256 MiB cap), and the process cannot exit meanwhile, since
 * Node joins every worker thread on its way out (seen on Node 20.20, V8 11.3). Compiled by TurboFan
 * from the start, the same loop ends within milliseconds of the request. Modules are compiled once
 * and cached, so the slower compilation costs little.
 */
export const WASM_COMPILER_FLAGS: readonly string[] = ["--no-wasm-dynamic-tiering"];

let applied = false;

/** Sets WASM_COMPILER_FLAGS once, before the first module is compiled. They apply process-wide. */
export function applyWasmCompilerFlags(): void {
  if (applied) return;
  applied = true;
  for (const flag of WASM_COMPILER_FLAGS) setFlagsFromString(flag);
}
