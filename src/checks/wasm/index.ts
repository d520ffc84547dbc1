/**
 * The `wasm` check type: user-written checks as WASI preview1 modules, sandboxed (no files, no
 * network, no environment), run in a pool of worker threads that are terminated at the timeout.
 */
export { createWasmChecker, type WasmChecker, type WasmCheckerOptions } from "./wasm-checker.js";
