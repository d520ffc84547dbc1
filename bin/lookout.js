#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=1 --single-threaded-gc
/**
 * The `lookout` command as users run it (package.json "bin", `npm start`): the server in
 * dist/src/main.js, started with three settings that only take effect when given at process start,
 * which is what the `env -S` line above does (GNU coreutils 8.30+, BusyBox, BSD and macOS env):
 *
 * - `--max-semi-space-size=1`: the main thread's young generation, 1 MiB per semi-space instead of
 *   up to 16. V8 sizes a thread's young generation when it creates its heap, so this cannot be set
 *   from inside (the writer thread's own limit is set when Lookout starts it; see
 *   WriterOptions.youngGenerationMb). Under ingestion it saves ~30 MiB.
 * - `MALLOC_ARENA_MAX=2`: glibc's malloc keeps two arenas instead of up to eight per core, one per
 *   thread that allocated at the same time (main, writer, libuv's pool, V8's helpers). Saves
 *   15-20 MiB; glibc reads it when the process starts. Other C libraries ignore it.
 * - `--single-threaded-gc`: each thread's garbage is collected on that thread, not on V8's helper
 *   threads. The writer's collections (~12-15 % of a core under full-speed ingestion) then run under
 *   the writer's SCHED_IDLE policy instead of at normal priority, where they took CPU from reads;
 *   the reader's own collections are small. V8 cannot switch it once it has made its first heap.
 *
 * docs/storage.md ("Memory") has the figures and what they cost. Running `node dist/src/main.js`
 * directly starts the same server without these settings; the "listening" log line says which
 * were in force.
 */
import "../dist/src/main.js";
