import { getHeapSpaceStatistics } from "node:v8";

/** One V8 heap space of a thread (bytes): what it has committed and what of that is in use. */
export interface HeapSpace {
  readonly size: number;
  readonly used: number;
}

/**
 * The calling thread's memory as V8 and Node account for it, in bytes. Every thread (the reader,
 * the writer) has its own isolate, so these figures are per thread; RSS is the process's.
 */
export interface ThreadMemory {
  /** Live objects plus garbage not yet collected. */
  readonly heapUsed: number;
  /** What the isolate's heap has committed (RSS counts the pages of it that were touched). */
  readonly heapTotal: number;
  /** Memory outside the heap that V8 objects own (buffers, external strings), array buffers included. */
  readonly external: number;
  readonly arrayBuffers: number;
  /** By V8 space name (`new_space`, `old_space`, `large_object_space`, ...). */
  readonly spaces: Readonly<Record<string, HeapSpace>>;
}

/**
 * The calling thread's heap figures. With `collect` (and a `gc` global, i.e. under --expose-gc) it
 * collects garbage first, so that `heapUsed` is the live heap: for benchmarks, never for metrics.
 */
export function threadMemory(collect = false): ThreadMemory {
  if (collect) (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const spaces: Record<string, HeapSpace> = {};
  for (const s of getHeapSpaceStatistics()) {
    spaces[s.space_name] = { size: s.space_size, used: s.space_used_size };
  }
  return {
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    spaces,
  };
}
