/**
 * A deliberately small WASI preview1 (`wasi_snapshot_preview1`) host: stdout and stderr, argv, an
 * empty environment, clocks, random bytes and proc_exit. There are no preopened directories and no
 * sockets, so a module can reach no file and no network: fd_prestat_get reports no preopens (what
 * libc's open() needs), every path_* call and any fd above 2 gives EBADF, and every other import gives
 * ENOSYS. Written here rather than taken from node:wasi so that what a module may do is exactly
 * what this file says.
 */
import { getRandomValues } from "node:crypto";
import { type WasmImports, type WasmMemory, type WasmModule, wasmApi } from "./webassembly-api.js";

const ESUCCESS = 0;
const EBADF = 8;
const EINVAL = 28;
const ENOSYS = 52;
const ESPIPE = 70;

/** Thrown through the wasm stack by proc_exit; caught by the runner. */
export class ProcExit extends Error {
  override readonly name = "ProcExit";
  constructor(readonly code: number) {
    super(`proc_exit(${code})`);
  }
}

class Sink {
  readonly #chunks: Uint8Array[] = [];
  #kept = 0;
  truncated = false;
  constructor(private readonly cap: number) {}

  write(bytes: Uint8Array): void {
    const room = this.cap - this.#kept;
    if (bytes.length > room) this.truncated = true;
    if (room <= 0) return;
    const part = bytes.length > room ? bytes.subarray(0, room) : bytes;
    this.#chunks.push(part.slice());
    this.#kept += part.length;
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString("utf8");
  }
}

/** One module run's host: build it, instantiate with `imports`, `bind` the memory, call `_start`. */
export interface WasiHost {
  /** Imports this host cannot satisfy (anything but preview1 functions), as `module.name (kind)`. */
  readonly foreignImports: readonly string[];
  readonly imports: WasmImports;
  bind(memory: WasmMemory): void;
  stdout(): string;
  stderr(): string;
  truncated(): boolean;
}

/** The preview1 functions this host implements; everything else a module imports gets ENOSYS. */
export function createWasiHost(module: WasmModule, args: readonly string[], cap: number): WasiHost {
  let memory: WasmMemory | undefined;
  const out = new Sink(cap);
  const err = new Sink(cap);
  const argBytes = args.map((a) => Buffer.from(`${a}\0`, "utf8"));
  const view = (): DataView => new DataView((memory as WasmMemory).buffer);
  const bytes = (): Uint8Array => new Uint8Array((memory as WasmMemory).buffer);

  const impl: Record<string, (...a: never[]) => number | undefined> = {
    args_sizes_get(argcPtr: number, sizePtr: number) {
      const v = view();
      v.setUint32(argcPtr, argBytes.length, true);
      v.setUint32(
        sizePtr,
        argBytes.reduce((n, b) => n + b.length, 0),
        true,
      );
      return ESUCCESS;
    },
    args_get(argvPtr: number, bufPtr: number) {
      const v = view();
      const b = bytes();
      let p = bufPtr;
      argBytes.forEach((a, i) => {
        v.setUint32(argvPtr + i * 4, p, true);
        b.set(a, p);
        p += a.length;
      });
      return ESUCCESS;
    },
    environ_sizes_get(countPtr: number, sizePtr: number) {
      const v = view();
      v.setUint32(countPtr, 0, true);
      v.setUint32(sizePtr, 0, true);
      return ESUCCESS;
    },
    environ_get: () => ESUCCESS,
    fd_write(fd: number, iovs: number, iovsLen: number, nwrittenPtr: number) {
      const sink = fd === 1 ? out : fd === 2 ? err : undefined;
      if (sink === undefined) return EBADF;
      const v = view();
      const b = bytes();
      let n = 0;
      for (let i = 0; i < iovsLen; i++) {
        const ptr = v.getUint32(iovs + i * 8, true);
        const len = v.getUint32(iovs + i * 8 + 4, true);
        sink.write(b.subarray(ptr, ptr + len));
        n += len;
      }
      v.setUint32(nwrittenPtr, n, true);
      return ESUCCESS;
    },
    fd_read(fd: number, _iovs: number, _iovsLen: number, nreadPtr: number) {
      if (fd !== 0) return EBADF;
      view().setUint32(nreadPtr, 0, true); // stdin is always at its end
      return ESUCCESS;
    },
    fd_fdstat_get(fd: number, ptr: number) {
      if (fd > 2) return EBADF;
      const v = view();
      v.setUint8(ptr, 2); // filetype: character device
      v.setUint16(ptr + 2, 0, true); // flags
      const rights = fd === 0 ? 2n : 64n; // fd_read or fd_write
      v.setBigUint64(ptr + 8, rights, true);
      v.setBigUint64(ptr + 16, 0n, true);
      return ESUCCESS;
    },
    fd_close: (fd: number) => (fd <= 2 ? ESUCCESS : EBADF),
    fd_seek: (fd: number) => (fd <= 2 ? ESPIPE : EBADF),
    fd_prestat_get: () => EBADF,
    fd_prestat_dir_name: () => EBADF,
    path_open: () => EBADF,
    proc_exit(code: number) {
      throw new ProcExit(code);
    },
    clock_res_get(id: number, ptr: number) {
      if (id > 3) return EINVAL;
      view().setBigUint64(ptr, 1000n, true);
      return ESUCCESS;
    },
    clock_time_get(id: number, _precision: bigint, ptr: number) {
      let ns: bigint;
      if (id === 0) ns = BigInt(Date.now()) * 1_000_000n;
      else if (id === 1 || id === 2 || id === 3) ns = process.hrtime.bigint();
      else return EINVAL;
      view().setBigUint64(ptr, ns, true);
      return ESUCCESS;
    },
    random_get(ptr: number, len: number) {
      const b = bytes();
      for (let off = 0; off < len; off += 65536) {
        getRandomValues(b.subarray(ptr + off, ptr + Math.min(len, off + 65536)));
      }
      return ESUCCESS;
    },
    sched_yield: () => ESUCCESS,
  };

  const wasi: Record<string, (...a: never[]) => number | undefined> = {};
  const foreign: string[] = [];
  for (const imp of wasmApi.Module.imports(module)) {
    if (imp.module !== "wasi_snapshot_preview1" || imp.kind !== "function") {
      foreign.push(`${imp.module}.${imp.name} (${imp.kind})`);
      continue;
    }
    wasi[imp.name] = impl[imp.name] ?? (imp.name.startsWith("path_") ? () => EBADF : () => ENOSYS);
  }
  return {
    foreignImports: foreign,
    imports: { wasi_snapshot_preview1: wasi },
    bind(m) {
      memory = m;
    },
    stdout: () => out.text(),
    stderr: () => err.text(),
    truncated: () => out.truncated || err.truncated,
  };
}
