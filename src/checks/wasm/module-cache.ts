import { readFile, stat } from "node:fs/promises";
import { applyWasmCompilerFlags } from "./compiler-flags.js";
import { capMemory } from "./memory-cap.js";
import { type WasmModule, wasmApi } from "./webassembly-api.js";

interface Entry {
  readonly mtimeMs: number;
  readonly size: number;
  readonly module: Promise<WasmModule>;
}

/** Compiled modules by path, recompiled when the file's mtime or size changes. */
export interface ModuleCache {
  /** The compiled module for `path`; rejects with a message fit for a check output. */
  get(path: string): Promise<WasmModule>;
  /** How many compilations happened (for tests and benchmarks). */
  readonly compiles: number;
}

/**
 * A cache of compiled modules keyed by path and validated by (mtime, size) on every use, so an
 * edited module is picked up on its next run without a reload. Concurrent first runs share one
 * compilation. Each module's memory is capped at `maxMemoryPages` before compiling.
 */
export function createModuleCache(maxMemoryPages: number): ModuleCache {
  applyWasmCompilerFlags();
  const entries = new Map<string, Entry>();
  let compiles = 0;
  return {
    get compiles() {
      return compiles;
    },
    async get(path) {
      const st = await stat(path);
      if (!st.isFile()) throw new Error(`${path} is not a file`);
      const hit = entries.get(path);
      if (hit !== undefined && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.module;
      compiles++;
      const module = readFile(path).then((bytes) => wasmApi.compile(capMemory(bytes, maxMemoryPages)));
      const entry = { mtimeMs: st.mtimeMs, size: st.size, module };
      entries.set(path, entry);
      // A failed compile is not cached: the next run tries again (the file may be mid-write).
      module.catch(() => {
        if (entries.get(path) === entry) entries.delete(path);
      });
      return module;
    },
  };
}
