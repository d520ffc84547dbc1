/**
 * WebAssembly text modules for the wasm check's tests and benchmarks, compiled with the `wabt`
 * package (a dev dependency: this file is only imported by tests and bench/).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import wabt from "wabt";

const IMPORTS = `
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))`;
const PRELUDE = `
  (memory (export "memory") 2)
  (func $print (param $ptr i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $ptr))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
`;

function watString(s: string): string {
  return [...Buffer.from(s, "utf8")].map((b) => `\\${b.toString(16).padStart(2, "0")}`).join("");
}

/** Prints `text` to stdout, then exits with `code` (or returns from _start when code is undefined). */
export function printAndExit(text: string, code?: number): string {
  const len = Buffer.byteLength(text, "utf8");
  return `(module ${IMPORTS}
  ${PRELUDE}
  (data (i32.const 1024) "${watString(text)}")
  (func (export "_start")
    (call $print (i32.const 1024) (i32.const ${len}))
    ${code === undefined ? "" : `(call $proc_exit (i32.const ${code}))`}))`;
}

/** Prints its argv (after argv[0]) joined by spaces, prefixed by "OK - args:". */
export const ECHO_ARGS = `(module ${IMPORTS}
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  ${PRELUDE}
  (data (i32.const 1024) "OK - args:")
  (func (export "_start") (local $i i32) (local $end i32) (local $start i32)
    (drop (call $args_sizes_get (i32.const 16) (i32.const 20)))
    ;; argv pointers at 2048, strings at 4096
    (drop (call $args_get (i32.const 2048) (i32.const 4096)))
    (local.set $end (i32.add (i32.const 4096) (i32.load (i32.const 20))))
    ;; skip argv[0]: start at the pointer of argv[1], or the end when there is none
    (local.set $start (select (i32.load (i32.const 2052)) (local.get $end) (i32.gt_u (i32.load (i32.const 16)) (i32.const 1))))
    ;; turn the NUL separators into spaces
    (local.set $i (local.get $start))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
      (if (i32.eqz (i32.load8_u (local.get $i))) (then (i32.store8 (local.get $i) (i32.const 32))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (call $print (i32.const 1024) (i32.const 10))
    (i32.store8 (i32.const 1034) (i32.const 32))
    (call $print (i32.const 1034) (i32.const 1))
    (call $print (local.get $start) (i32.sub (local.get $end) (local.get $start)))
    (call $proc_exit (i32.const 0))))`;

/** Spins for ever. */
export const ENDLESS_LOOP = `(module ${IMPORTS}
  ${PRELUDE}
  (func (export "_start") (loop $l (br $l))))`;

/** Traps with `unreachable` after printing a line. */
export const TRAP = `(module ${IMPORTS}
  ${PRELUDE}
  (data (i32.const 1024) "about to trap")
  (func (export "_start") (call $print (i32.const 1024) (i32.const 13)) unreachable))`;

/**
 * Tries to open /etc/passwd: first asks for preopened directories (as libc does), then calls
 * path_open on fd 3 anyway. Prints "CRITICAL - denied: prestat errno NN, path_open errno NN" and
 * exits 2 when both fail; prints "OK - opened" and exits 0 if either worked.
 */
export const OPEN_FILE = `(module ${IMPORTS}
  (import "wasi_snapshot_preview1" "fd_prestat_get" (func $fd_prestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  ${PRELUDE}
  (data (i32.const 1024) "/etc/passwd")
  (data (i32.const 1100) "CRITICAL - denied: prestat errno ??, path_open errno ??")
  (data (i32.const 1200) "OK - opened")
  (func $digits (param $at i32) (param $n i32)
    (i32.store8 (local.get $at) (i32.add (i32.const 48) (i32.div_u (local.get $n) (i32.const 10))))
    (i32.store8 (i32.add (local.get $at) (i32.const 1)) (i32.add (i32.const 48) (i32.rem_u (local.get $n) (i32.const 10)))))
  (func (export "_start") (local $a i32) (local $b i32)
    (local.set $a (call $fd_prestat_get (i32.const 3) (i32.const 512)))
    (local.set $b (call $path_open (i32.const 3) (i32.const 0) (i32.const 1024) (i32.const 11)
      (i32.const 0) (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 520)))
    (if (i32.and (i32.ne (local.get $a) (i32.const 0)) (i32.ne (local.get $b) (i32.const 0)))
      (then
        (call $digits (i32.const 1133) (local.get $a))
        (call $digits (i32.const 1153) (local.get $b))
        (call $print (i32.const 1100) (i32.const 55))
        (call $proc_exit (i32.const 2))))
    (call $print (i32.const 1200) (i32.const 11))
    (call $proc_exit (i32.const 0))))`;

/**
 * Grows memory one page at a time until refused, then prints "OK - pages NNNNN" (5 digits) and exits
 * 0: the test reads how far it got.
 */
export const MEMORY_HOG = `(module ${IMPORTS}
  ${PRELUDE}
  (data (i32.const 1024) "OK - pages 00000")
  (func (export "_start") (local $p i32) (local $i i32)
    (block $done (loop $l
      (br_if $done (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
      (br $l)))
    (local.set $p (memory.size))
    (local.set $i (i32.const 1039))
    (block $d2 (loop $l2
      (br_if $d2 (i32.lt_u (local.get $i) (i32.const 1035)))
      (i32.store8 (local.get $i) (i32.add (i32.const 48) (i32.rem_u (local.get $p) (i32.const 10))))
      (local.set $p (i32.div_u (local.get $p) (i32.const 10)))
      (local.set $i (i32.sub (local.get $i) (i32.const 1)))
      (br $l2)))
    (call $print (i32.const 1024) (i32.const 16))
    (call $proc_exit (i32.const 0))))`;

/** Imports a function Lookout does not provide. */
export const FOREIGN_IMPORT = `(module ${IMPORTS}
  (import "env" "launch_missiles" (func $launch))
  ${PRELUDE}
  (func (export "_start") (call $launch)))`;

/** Calls an unimplemented WASI function (sock_accept) and exits with its errno. */
export const UNSUPPORTED_CALL = `(module ${IMPORTS}
  (import "wasi_snapshot_preview1" "sock_accept" (func $sock_accept (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))
  ${PRELUDE}
  (data (i32.const 1024) "UNKNOWN - sock_accept gave ENOSYS")
  (func (export "_start")
    ;; random_get and clock_time_get must succeed, and the clock must be past 2020
    (if (i32.ne (call $random_get (i32.const 2048) (i32.const 100000)) (i32.const 0)) (then (call $proc_exit (i32.const 10))))
    (if (i32.ne (call $clock_time_get (i32.const 0) (i64.const 1) (i32.const 512)) (i32.const 0)) (then (call $proc_exit (i32.const 11))))
    (if (i64.lt_u (i64.load (i32.const 512)) (i64.const 1577836800000000000)) (then (call $proc_exit (i32.const 12))))
    (if (i32.eq (call $sock_accept (i32.const 3) (i32.const 0) (i32.const 0)) (i32.const 52))
      (then (call $print (i32.const 1024) (i32.const 33)) (call $proc_exit (i32.const 3))))
    (call $proc_exit (i32.const 13))))`;

/** Compiles WAT to a .wasm file in `dir` and returns its path. */
export async function buildWat(dir: string, name: string, wat: string): Promise<string> {
  const w = await wabt();
  const mod = w.parseWat(`${name}.wat`, wat);
  try {
    const { buffer } = mod.toBinary({});
    const path = join(dir, `${name}.wasm`);
    writeFileSync(path, buffer);
    return path;
  } finally {
    mod.destroy();
  }
}
