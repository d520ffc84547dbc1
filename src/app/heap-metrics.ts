import { Gauge, type Registry } from "prom-client";
import { type ThreadMemory, threadMemory } from "../store/index.js";

/** The threads whose heaps are reported: the one serving reads and the store's writer. */
export type HeapThread = "reader" | "writer";

/**
 * How long a scrape waits for the writer's figures before it reports the last ones the writer sent.
 * The writer answers between its tasks, and one task can take seconds (applying a reload's config
 * to tens of thousands of objects, at a lower CPU priority on a busy machine): a scrape must not
 * wait for it, or /metrics stalls for as long as the writer is busy.
 */
export const WRITER_WAIT_MS = 50;

/**
 * Registers `lookout_heap_*{thread}` gauges: each thread's V8 heap (used, committed, per space) and
 * the memory its objects own outside the heap. Node's own `nodejs_heap_*` metrics see only the
 * main thread; the writer thread (engine, event log) holds the other half of Lookout's memory.
 * `writer` is asked once per scrape, and once at registration; no garbage is collected for it. A
 * scrape waits at most `waitMs` (default WRITER_WAIT_MS) for its answer and otherwise reports the
 * writer's last answer (none, until it first answered); at most one question is outstanding.
 */
export function registerHeapMetrics(
  registry: Registry,
  writer: () => Promise<ThreadMemory>,
  waitMs = WRITER_WAIT_MS,
): void {
  let last: ThreadMemory | undefined;
  let asking: Promise<void> | undefined;
  const ask = (): Promise<void> => {
    asking ??= writer().then(
      (w) => {
        last = w;
        asking = undefined;
      },
      () => {
        last = undefined;
        asking = undefined;
      },
    );
    return asking;
  };
  void ask();
  // The six gauges are collected one after another in one scrape: they share one wait for the
  // writer, forgotten once the scrape's synchronous part is over.
  let figures: Promise<Record<HeapThread, ThreadMemory | undefined>> | undefined;
  const current = (): Promise<Record<HeapThread, ThreadMemory | undefined>> => {
    if (figures === undefined) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
      });
      figures = Promise.race([ask(), waited]).then(() => {
        clearTimeout(timer);
        return { reader: threadMemory(), writer: last };
      });
      setTimeout(() => {
        figures = undefined;
      }, 100).unref();
    }
    return figures;
  };
  const gauge = (
    name: string,
    help: string,
    read: (g: Gauge, thread: HeapThread, m: ThreadMemory) => void,
    labelNames = ["thread"],
  ): void => {
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const f = await current();
        this.reset();
        for (const thread of ["reader", "writer"] as const) {
          const m = f[thread];
          if (m !== undefined) read(this, thread, m);
        }
      },
    });
  };
  gauge(
    "lookout_heap_used_bytes",
    "V8 heap in use (live objects and garbage not yet collected).",
    (g, t, m) => g.set({ thread: t }, m.heapUsed),
  );
  gauge("lookout_heap_total_bytes", "V8 heap committed.", (g, t, m) => g.set({ thread: t }, m.heapTotal));
  gauge(
    "lookout_heap_external_bytes",
    "Memory outside the V8 heap owned by heap objects (array buffers included).",
    (g, t, m) => g.set({ thread: t }, m.external),
  );
  gauge("lookout_heap_array_buffers_bytes", "Memory of ArrayBuffers.", (g, t, m) =>
    g.set({ thread: t }, m.arrayBuffers),
  );
  gauge(
    "lookout_heap_space_size_bytes",
    "V8 heap space committed.",
    (g, t, m) => {
      for (const [space, s] of Object.entries(m.spaces)) g.set({ thread: t, space }, s.size);
    },
    ["thread", "space"],
  );
  gauge(
    "lookout_heap_space_used_bytes",
    "V8 heap space in use.",
    (g, t, m) => {
      for (const [space, s] of Object.entries(m.spaces)) g.set({ thread: t, space }, s.used);
    },
    ["thread", "space"],
  );
}
