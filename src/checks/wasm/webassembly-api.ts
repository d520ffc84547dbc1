/**
 * The slice of the WebAssembly JS API this module uses, typed locally: the project compiles without
 * the DOM lib and @types/node 20 does not declare `WebAssembly`. Declared here rather than globally so
 * nothing clashes if the project later adds a lib that has it.
 */

/** A compiled module; structured-clonable to worker threads. */
export interface WasmModule {
  readonly __brand?: "WebAssembly.Module";
}
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
export interface WasmInstance {
  readonly exports: Record<string, unknown>;
}
export interface WasmImportDescriptor {
  readonly module: string;
  readonly name: string;
  readonly kind: "function" | "table" | "memory" | "global" | "tag";
}
export type WasmImports = Record<string, Record<string, unknown>>;

interface WebAssemblyApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Module: { imports(m: WasmModule): WasmImportDescriptor[] };
  Instance: new (m: WasmModule, imports: WasmImports) => WasmInstance;
  Memory: abstract new (...args: never[]) => WasmMemory;
}

/** The global WebAssembly object, typed. */
export const wasmApi = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
