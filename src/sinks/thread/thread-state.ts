import type { ConsumerState } from "../../consumers/index.js";

/** The sink thread's view of the consumers' state: positions live on the main thread. */
export interface ThreadState extends ConsumerState {
  /** The main thread runs `consumer` from `position` (its stored position). */
  run(consumer: string, position: number): void;
  /** Resolves once the main thread has stored `position` (or a later one) of `consumer`. */
  stored(consumer: string, position: number): Promise<void>;
  /** The main thread's answer: `position` of `consumer` is stored. */
  acknowledged(consumer: string, position: number): void;
}

/**
 * The ConsumerState of the sink thread's own consumer host: a position `put` there is posted to the
 * main thread (`post.put`), which stores it in consumers.db and answers; `stored` waits for that
 * answer. Key/value entries are not kept here (no sink uses them). A position is posted only when
 * it moves forward.
 */
export function createThreadState(post: { put(consumer: string, position: number): void }): ThreadState {
  const positions = new Map<string, number>();
  const acked = new Map<string, number>();
  const waiters = new Map<string, { position: number; resolve: () => void }[]>();
  return {
    run(consumer, position) {
      positions.set(consumer, position);
      acked.set(consumer, Math.max(acked.get(consumer) ?? 0, position));
    },
    position: (consumer) => positions.get(consumer),
    get: () => undefined,
    list: () => [],
    put(consumer, _entries, position) {
      if (position === undefined || position <= (positions.get(consumer) ?? -1)) return;
      positions.set(consumer, position);
      post.put(consumer, position);
    },
    stored(consumer, position) {
      if ((acked.get(consumer) ?? -1) >= position) return Promise.resolve();
      return new Promise((resolve) => {
        let list = waiters.get(consumer);
        if (list === undefined) {
          list = [];
          waiters.set(consumer, list);
        }
        list.push({ position, resolve });
      });
    },
    acknowledged(consumer, position) {
      acked.set(consumer, Math.max(acked.get(consumer) ?? 0, position));
      const list = waiters.get(consumer);
      if (list === undefined) return;
      const left = list.filter((w) => {
        if (w.position > position) return true;
        w.resolve();
        return false;
      });
      if (left.length === 0) waiters.delete(consumer);
      else waiters.set(consumer, left);
    },
    consumers: () => [...positions].map(([name, position]) => ({ name, position })),
    forget(consumer) {
      positions.delete(consumer);
      acked.delete(consumer);
      for (const w of waiters.get(consumer) ?? []) w.resolve();
      waiters.delete(consumer);
    },
    close() {
      for (const list of waiters.values()) for (const w of list) w.resolve();
      waiters.clear();
    },
  };
}
