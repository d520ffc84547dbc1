import { setFlagsFromString } from "node:v8";

/**
 * V8 heap settings of the server process (docs/storage.md, "Memory"). V8's defaults suit a program
 * that allocates fast and lives briefly: after a full collection the old generation may grow to up
 * to four times what survived before the next one. Lookout holds a large, steady live heap (the
 * config, the projection, the engine's table) and turns over a lot of short-lived data (every
 * result's request, commands, events and their JSON), so with those defaults most of its RSS at
 * 100,000 services was garbage waiting for the next full collection.
 *
 * - `--heap-growing-percent=50`: the old generation may grow by half of what survived (in every
 *   thread: V8 reads the setting at each full collection, so setting it at run time works). The
 *   cost is more full collections under full-speed ingestion (most of their marking runs on V8's
 *   helper threads).
 * - `--max-semi-space-size=0` (V8's "not set"): the launcher (bin/lookout.js) gives
 *   `--max-semi-space-size=1` at start for the main thread's young generation, which V8 sizes when
 *   it makes the thread's heap. V8 would apply it to every thread made later too, overriding the
 *   writer's own limit (WriterOptions.youngGenerationMb); unset once the main thread's heap exists,
 *   it leaves each worker the young generation Lookout gives it (the config loader: V8's default).
 *
 * Applied when this module is evaluated: src/app/index.ts imports it first. Process-wide, like
 * every V8 flag.
 */
export const SERVER_V8_FLAGS: readonly string[] = ["--heap-growing-percent=50", "--max-semi-space-size=0"];

for (const flag of SERVER_V8_FLAGS) setFlagsFromString(flag);
