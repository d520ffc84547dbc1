/**
 * The body of a wasm worker thread: instantiates a compiled module with the WASI host and runs its
 * `_start`, one job at a time. The main thread terminates the whole worker at the check's timeout,
 * which stops even a module stuck in an endless loop.
 */
import { parentPort } from "node:worker_threads";
import { createWasiHost, ProcExit } from "./wasi.js";
import { type WasmInstance, type WasmMemory, type WasmModule, wasmApi } from "./webassembly-api.js";

/** A job for the worker. */
export interface WasmJob {
  readonly id: number;
  readonly module: WasmModule;
  readonly args: readonly string[];
  readonly cap: number;
}

/** What the worker sends back: how the module ended, and what it wrote. */
export interface WasmJobResult {
  readonly id: number;
  readonly end:
    | { readonly kind: "exit"; readonly code: number }
    | { readonly kind: "error"; readonly message: string };
  readonly stdout: string;
  readonly stderr: string;
  readonly truncated: boolean;
}

function run(job: WasmJob): WasmJobResult {
  const host = createWasiHost(job.module, job.args, job.cap);
  const result = (end: WasmJobResult["end"]): WasmJobResult => ({
    id: job.id,
    end,
    stdout: host.stdout(),
    stderr: host.stderr(),
    truncated: host.truncated(),
  });
  if (host.foreignImports.length > 0) {
    const list = host.foreignImports.join(", ");
    return result({
      kind: "error",
      message: `module imports ${list}; only wasi_snapshot_preview1 functions exist`,
    });
  }
  let instance: WasmInstance;
  try {
    instance = new wasmApi.Instance(job.module, host.imports);
  } catch (e) {
    return result({
      kind: "error",
      message: `cannot instantiate: ${e instanceof Error ? e.message : String(e)}`,
    });
  }
  const { memory, _start: start } = instance.exports;
  if (!(memory instanceof wasmApi.Memory))
    return result({ kind: "error", message: "module exports no memory" });
  if (typeof start !== "function")
    return result({ kind: "error", message: "module exports no _start function" });
  host.bind(memory as WasmMemory);
  try {
    start();
    return result({ kind: "exit", code: 0 });
  } catch (e) {
    if (e instanceof ProcExit) return result({ kind: "exit", code: e.code });
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return result({ kind: "error", message: `trapped: ${message}` });
  }
}

parentPort?.on("message", (job: WasmJob) => {
  parentPort?.postMessage(run(job));
});
