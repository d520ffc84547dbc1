import { SERVER_V8_FLAGS } from "./v8-heap.js";

/**
 * The memory settings this process runs with, as the "listening" log line reports them: what the
 * launcher (bin/lookout.js) sets at process start, and what Lookout sets itself (v8-heap.ts). An
 * operator — and bench/memory.ts — can tell from it how a server was started.
 */
export interface MemorySettings {
  /**
   * The main thread's young generation limit in MiB per semi-space, as given at start
   * (`--max-semi-space-size` on the command line or in NODE_OPTIONS); undefined: V8's default
   * (up to 16 on 64-bit).
   */
  readonly maxSemiSpaceMiB: number | undefined;
  /** glibc's malloc arena limit (MALLOC_ARENA_MAX or GLIBC_TUNABLES glibc.malloc.arena_max); undefined: glibc's default. */
  readonly mallocArenaMax: number | undefined;
  /**
   * Whether V8 collects each thread's garbage on that thread alone (`--single-threaded-gc` at
   * start), as the launcher has it: the writer's collections then run under the writer's SCHED_IDLE
   * policy instead of on V8's helper threads at normal priority, where they competed with reads.
   */
  readonly singleThreadedGc: boolean;
  /** The V8 flags Lookout sets at run time, in every thread. */
  readonly v8Flags: readonly string[];
}

/** The value of the last `--max-semi-space-size` (or `--max_semi_space_size`) among `args`. */
function lastSemiSpace(args: readonly string[]): number | undefined {
  let out: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const m = /^--max[-_]semi[-_]space[-_]size(?:=(.*))?$/.exec(a);
    if (m === null) continue;
    const v = Number(m[1] ?? args[i + 1]);
    if (Number.isFinite(v)) out = v;
  }
  return out;
}

/**
 * Reads the settings from the process's start arguments and environment. Command-line flags win
 * over NODE_OPTIONS, as in Node. With both MALLOC_ARENA_MAX and the tunable set, which one glibc
 * heeds depends on its version; this reports MALLOC_ARENA_MAX, which the launcher sets.
 */
export function memorySettings(
  execArgv: readonly string[] = process.execArgv,
  env: NodeJS.ProcessEnv = process.env,
): MemorySettings {
  const fromOptions = lastSemiSpace((env.NODE_OPTIONS ?? "").split(/\s+/).filter((a) => a !== ""));
  const tunable = /(?:^|:)glibc\.malloc\.arena_max=(\d+)/.exec(env.GLIBC_TUNABLES ?? "")?.[1];
  const arena = env.MALLOC_ARENA_MAX ?? tunable;
  const arenaMax = arena === undefined || arena === "" ? undefined : Number(arena);
  return {
    maxSemiSpaceMiB: lastSemiSpace(execArgv) ?? fromOptions,
    singleThreadedGc: execArgv.some((a) => /^--single[-_]threaded[-_]gc$/.test(a)),
    mallocArenaMax: arenaMax !== undefined && Number.isFinite(arenaMax) ? arenaMax : undefined,
    v8Flags: SERVER_V8_FLAGS,
  };
}
