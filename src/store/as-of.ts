import { setImmediate as nextTurn } from "node:timers/promises";
import type { AsOfPlan } from "./as-of-log.js";
import type { AsOfThreadData, FromAsOf } from "./as-of-thread.js";
import { OutOfRangeError, RejectedError, StoreError } from "./errors.js";
import { createProjection, type Projection } from "./projection.js";
import type { ProjectionDelta } from "./records.js";
import { createThreadClient } from "./thread-client.js";

/** A request to the thread (ToAsOf), before the client numbers it. */
type ToAsOfRequest = { t: "plan"; at: number } | { t: "rebuild"; plan: AsOfPlan };

/** Options of createAsOf. */
export interface AsOfOptions {
  readonly dataDir: string;
  /** The clock commands are stamped with: a moment after it is in the future. */
  readonly now: () => number;
  /** Rebuilt projections kept, least recently used out first (default 4). */
  readonly cacheSize?: number;
  /**
   * Records placed per turn of this thread's event loop as a rebuilt projection is taken in
   * (default 500, as the live deltas are: a turn of a fraction of a millisecond, so that the
   * writer's acknowledgements and live reads never wait behind a take-in).
   */
  readonly step?: number;
  /**
   * Whether the writer has work queued: while it has, a rebuild pauses between its steps
   * (src/store/as-of-thread.ts, createPace), so that ingestion is not slowed by reads of the past.
   */
  readonly writerBusy?: () => boolean;
}

/** How often the writer's business is looked at while a rebuild is owed (ms). */
const BUSY_POLL_MS = 5;

/**
 * Projections of the past, for ListStatus `at` (docs/storage.md, "Status as of a moment"). Each is
 * rebuilt from the nearest kept snapshot at or before the moment and the events logged after it
 * up to the moment, on a thread of its own (src/store/as-of-thread.ts) that reads the log
 * read-only, never from the live projection; it is then taken in on this thread a step at a time,
 * so that live reads go on meanwhile. The last few are kept, by what they were rebuilt from, so
 * that paging through one moment, or asking again, costs one rebuild. Answers in the order asked
 * for each; rebuilds run one at a time.
 */
export interface AsOf {
  /**
   * The projection as it stood at `at` (ms since the epoch); rejects with OutOfRangeError for a
   * moment in the future or one the log no longer holds (the message names the oldest it can
   * answer), and RejectedError `invalid` for a moment that is not a time. The projection is
   * shared with other callers: read it, never apply anything to it.
   */
  projectionAt(at: number): Promise<Projection>;
  /** Stops the thread; pending requests fail. */
  close(): Promise<void>;
}

/** Creates the service; its thread starts with the first request. */
export function createAsOf(o: AsOfOptions): AsOf {
  const cacheSize = Math.max(1, o.cacheSize ?? 4);
  const step = Math.max(1, o.step ?? 500);
  const cache = new Map<string, Promise<Projection>>();
  // The writer's business as the thread reads it between steps (AsOfThreadData.busy), kept up to
  // date only while the thread owes an answer.
  const busy = new Int32Array(new SharedArrayBuffer(4));
  let poll: ReturnType<typeof setInterval> | undefined;
  const look = (): void => {
    const now = o.writerBusy?.() === true ? 1 : 0;
    if (Atomics.exchange(busy, 0, now) === 1 && now === 0) Atomics.notify(busy, 0);
  };
  const watch = (on: boolean): void => {
    if (o.writerBusy === undefined) return;
    if (on && poll === undefined) {
      look();
      poll = setInterval(look, BUSY_POLL_MS);
      poll.unref();
    } else if (!on && poll !== undefined) {
      clearInterval(poll);
      poll = undefined;
      Atomics.store(busy, 0, 0);
    }
  };

  const client = createThreadClient<ToAsOfRequest, FromAsOf>({
    module: new URL("./as-of-thread.js", import.meta.url),
    workerData: { dataDir: o.dataDir, busy } satisfies AsOfThreadData,
    what: "rebuilds past projections",
    owing: watch,
  });
  const ask = async (m: ToAsOfRequest): Promise<FromAsOf> => {
    const answer = await client.ask(m);
    if (answer.t === "error") {
      throw answer.outOfRange === undefined
        ? new StoreError(answer.message)
        : new OutOfRangeError(answer.message, answer.outOfRange.stale);
    }
    return answer;
  };
  /** A rebuilt projection taken in `step` records per turn, so that reads on this thread go on. */
  const takeIn = async (delta: ProjectionDelta): Promise<Projection> => {
    const projection = createProjection(undefined, { historyCapacity: 1 });
    const apply = projection.applyDeltaInSteps(delta, step);
    while (!apply()) await nextTurn();
    return projection;
  };

  /** The projection at `at` from a plan: a cached one, or rebuilt on the thread and taken in. */
  const rebuiltAt = async (at: number): Promise<Projection> => {
    const answer = await ask({ t: "plan", at });
    if (answer.t !== "plan") throw new StoreError(`unexpected ${answer.t}`);
    const { plan } = answer;
    const key = `${plan.snapshot}:${plan.from}:${plan.to}`;
    let hit = cache.get(key);
    if (hit !== undefined) {
      // Most recently used last.
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    hit = (async () => {
      const rebuilt = await ask({ t: "rebuild", plan });
      if (rebuilt.t !== "rebuilt") throw new StoreError(`unexpected ${rebuilt.t}`);
      return takeIn(rebuilt.delta);
    })();
    cache.set(key, hit);
    while (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
    hit.catch(() => {
      if (cache.get(key) === hit) cache.delete(key);
    });
    return hit;
  };

  return {
    async projectionAt(at) {
      if (!Number.isFinite(at)) throw new RejectedError("invalid", "at is not a time");
      const now = o.now();
      if (at > now) {
        throw new OutOfRangeError(
          `at ${new Date(at).toISOString()} is in the future (now ${new Date(now).toISOString()})`,
        );
      }
      try {
        return await rebuiltAt(at);
      } catch (e) {
        // Retention (or a newer snapshot) dropped what the plan named between planning and
        // rebuilding: once more, from a fresh plan.
        if (e instanceof OutOfRangeError && e.stale) return rebuiltAt(at);
        throw e;
      }
    },
    async close() {
      cache.clear();
      await client.close();
    },
  };
}
