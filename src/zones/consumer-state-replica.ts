import { createHash } from "node:crypto";
import { type KV, Kvm, type KvWatchEntry } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import type { ConsumerState } from "../consumers/index.js";
import type { Logger } from "../model/logger.js";
import { CONSUMERS_BUCKET } from "./names.js";

/**
 * Most distinct keys waiting to be written. Past it the queue is dropped and, once NATS answers,
 * the whole local state is copied instead (a long outage costs one copy, not unbounded memory).
 */
export const MAX_PENDING_WRITES = 100_000;
/** At most one warning per this long while writes to NATS fail. */
export const MIRROR_WARN_EVERY_MS = 30_000;
/** How long a write to the bucket may take before it counts as failed (and is retried). */
export const MIRROR_TIMEOUT_MS = 5_000;
const RETRY_START_MS = 250;
const RETRY_MAX_MS = 5_000;
/** How often a queue waiting for `mirroring()` to answer true looks again. */
const GATE_POLL_MS = 200;
/** Longer base64url tokens are replaced by a hash (NATS subjects have a length limit). */
const MAX_CONSUMER_TOKEN = 256;
const MAX_KEY_TOKEN = 1024;

const b64 = (s: string): string => Buffer.from(s, "utf8").toString("base64url");
const unb64 = (s: string): string => Buffer.from(s, "base64url").toString("utf8");
const hash = (s: string): string => createHash("sha256").update(s).digest("base64url");

/**
 * The bucket key of a consumer's entry (`key` a string) or of its position (`key` undefined), and
 * whether the value must carry the names (`wrapped`): consumer names and entry keys are free text
 * (`sink:my sink`, `obj:web!http`) and KV keys allow only `[-/_=.a-zA-Z0-9]`, so the key is
 * `c<base64url(consumer)>.k<base64url(key)>`, the position `c<base64url(consumer)>.p`. A token
 * longer than 256 (consumer) or 1,024 (key) characters is replaced by `C` or `K` and the base64url
 * SHA-256 of the name, and the value is then the JSON `{"c": consumer, "k": key, "v": value}`.
 */
/** Entry writes the mirror has in flight at once. */
const WINDOW = 64;

export function consumerKvKey(consumer: string, key?: string): { kvKey: string; wrapped: boolean } {
  const c = b64(consumer);
  const ct = c.length <= MAX_CONSUMER_TOKEN ? `c${c}` : `C${hash(consumer)}`;
  let kt = "p";
  if (key !== undefined) {
    const k = b64(key);
    kt = k.length <= MAX_KEY_TOKEN ? `k${k}` : `K${hash(key)}`;
  }
  return { kvKey: `${ct}.${kt}`, wrapped: ct[0] === "C" || kt[0] === "K" };
}

/** Decodes a bucket entry (its value undefined for a deleted one); undefined: not a key of ours. */
export function parseConsumerKvEntry(
  kvKey: string,
  value: string | undefined,
): { consumer: string; key: string | undefined; value: string | undefined } | undefined {
  const m = /^([cC])([A-Za-z0-9_-]*)\.(p|[kK][A-Za-z0-9_-]*)$/.exec(kvKey);
  if (m === null) return undefined;
  const [, cKind, cToken, kToken] = m as unknown as [string, string, string, string];
  if (cKind === "c" && kToken[0] !== "K") {
    return { consumer: unb64(cToken), key: kToken === "p" ? undefined : unb64(kToken.slice(1)), value };
  }
  // Hashed: the names are in the value; a deleted one is known only by its hash.
  if (value === undefined) return { consumer: `#${kvKey}`, key: undefined, value: undefined };
  try {
    const w = JSON.parse(value) as { c?: unknown; k?: unknown; v?: unknown };
    if (typeof w.c !== "string" || typeof w.v !== "string") return undefined;
    return { consumer: w.c, key: typeof w.k === "string" ? w.k : undefined, value: w.v };
  } catch {
    return undefined;
  }
}

/**
 * A ConsumerState whose writes are mirrored to the KV bucket `lookout_consumers` (names.ts), so
 * that a new leader resumes the notifier and the sinks where the old one left them. Reads come from
 * the local state only.
 */
export interface ReplicatedConsumerState extends ConsumerState {
  /** The NATS connection to mirror through; writes made before it queue. */
  attach(nc: NatsConnection): void;
  /**
   * Makes the local state the leader's record, before this server starts the consumers as the new
   * leader: drops writes still queued from an earlier term, reads the whole bucket and, consumer by
   * consumer, keeps the record with the higher position (entries and position together, never
   * mixed): the bucket's (ties included) replaces the local one, and a local one that is ahead (this
   * server led before and its last writes did not reach the bucket) is copied to the bucket. A
   * consumer whose position the bucket holds deleted (and no entries) is forgotten here too. So no
   * position goes backwards, and none jumps past events whose side effects the record does not
   * hold. Rejects when NATS does not answer: a server that cannot read the record must not lead.
   */
  pull(): Promise<void>;
  /**
   * Waits until every queued write reached the bucket (true) or `timeoutMs` passed (false; default:
   * no limit). For stop and for tests.
   */
  flush(timeoutMs?: number): Promise<boolean>;
  /** Distinct keys waiting to be written. */
  readonly pending: number;
}

export interface ReplicatedConsumerStateOptions {
  /** The local state: `openConsumerState(dataDir)`; closed by `close()`. */
  readonly local: ConsumerState;
  readonly logger: Logger;
  /** The bucket's JetStream replicas (`-nats-replicas`; default 1). */
  readonly replicas?: number;
  /**
   * Whether this server's writes are the leader's (default: always). A write made while it answers
   * false stays local (a server that does not lead must not overwrite the leader's record: the
   * notifier's reload, a sink set forgetting a sink); queued writes wait while it answers false. Wire
   * it to `() => consumers.active`.
   */
  readonly mirroring?: () => boolean;
  /** Past this many distinct keys waiting, the queue becomes one full copy (default 100,000). */
  readonly maxPending?: number;
  /** A write's timeout (default 5 s). */
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

/** One queued write; compared by identity, so a newer write of the same key is never lost. */
interface Write {
  readonly value: string | null;
}

/** What the bucket holds for one consumer. */
interface Remote {
  position: number | undefined;
  positionDeleted: boolean;
  readonly entries: Map<string, string>;
}

/**
 * Wraps a local ConsumerState and mirrors every `put` and `forget` to the KV bucket, asynchronously
 * and in order, never blocking or failing the caller: writes queue per key (a newer write of a key
 * replaces the queued one and moves to the back, so the queue holds at most one write per key, and
 * a consumer's position always reaches the bucket after the entries written with or before it —
 * the bucket may hold entries a little ahead of the position, which a new leader repeats under the
 * same ids, never a position ahead of its entries). A failing write is retried with backoff (250 ms
 * doubling to 5 s) and logged at most every 30 s; past `maxPending` keys the queue is dropped and
 * the whole state copied once NATS answers. Consumers that have entries but no position (none of
 * the notifier's or the sinks') are mirrored as written, never copied in full.
 */
export function createReplicatedConsumerState(o: ReplicatedConsumerStateOptions): ReplicatedConsumerState {
  const { local, logger } = o;
  const mirroring = o.mirroring ?? (() => true);
  const maxPending = o.maxPending ?? MAX_PENDING_WRITES;
  const timeoutMs = o.timeoutMs ?? MIRROR_TIMEOUT_MS;
  const now = o.now ?? Date.now;
  const queue = new Map<string, Write>();
  let resync = false;
  let copying = false;
  let nc: NatsConnection | undefined;
  let kv: Promise<KV> | undefined;
  let draining: Promise<void> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let retryMs = RETRY_START_MS;
  let closed = false;
  let failures = 0;
  let lastWarnAt = Number.NEGATIVE_INFINITY;

  const bucket = (): Promise<KV> => {
    if (nc === undefined) return Promise.reject(new Error("the consumers' state is not attached to NATS"));
    kv ??= new Kvm(nc).create(CONSUMERS_BUCKET, {
      history: 1,
      replicas: o.replicas ?? 1,
      timeout: timeoutMs,
    });
    return kv.catch((e: unknown) => {
      kv = undefined;
      throw e;
    });
  };

  const storedValue = (consumer: string, key: string | undefined, value: string, wrapped: boolean): string =>
    wrapped
      ? JSON.stringify(key === undefined ? { c: consumer, v: value } : { c: consumer, k: key, v: value })
      : value;

  const enqueue = (consumer: string, key: string | undefined, value: string | null): void => {
    const { kvKey, wrapped } = consumerKvKey(consumer, key);
    queue.delete(kvKey);
    queue.set(kvKey, { value: value === null ? null : storedValue(consumer, key, value, wrapped) });
    if (queue.size > maxPending) {
      if (!resync && !copying) {
        logger.warn("consumers' state mirror: queue full; the whole state is copied once NATS answers", {
          maxPending,
        });
      }
      queue.clear();
      resync = true;
    }
  };

  const arm = (ms: number): void => {
    if (retryTimer !== undefined || closed) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      kick();
    }, ms);
    retryTimer.unref?.();
  };

  const failed = (e: unknown): void => {
    failures++;
    if (now() - lastWarnAt >= MIRROR_WARN_EVERY_MS) {
      lastWarnAt = now();
      logger.warn("cannot mirror the consumers' state to NATS; retrying", {
        error: String(e),
        failures,
        pending: queue.size,
      });
    }
  };

  const recovered = (): void => {
    retryMs = RETRY_START_MS;
    if (failures === 0) return;
    logger.info("consumers' state mirror writes to NATS again", { failures });
    failures = 0;
    lastWarnAt = Number.NEGATIVE_INFINITY;
  };

  /**
   * Writes every consumer with a position to the bucket (deletes of what only the bucket has, then
   * entries, then the position), directly: the queue is what overflowed.
   */
  const copyAll = async (b: KV): Promise<void> => {
    const remote = await readAll(b);
    for (const { name } of local.consumers()) {
      const r = remote.get(name);
      const entries = local.list(name);
      const have = new Set(entries.map((e) => e.key));
      for (const k of r?.entries.keys() ?? []) if (!have.has(k)) await b.delete(consumerKvKey(name, k).kvKey);
      for (const e of entries) {
        const { kvKey, wrapped } = consumerKvKey(name, e.key);
        await b.put(kvKey, storedValue(name, e.key, e.value, wrapped), { timeout: timeoutMs });
      }
      const p = local.position(name);
      if (p === undefined) continue;
      const { kvKey, wrapped } = consumerKvKey(name, undefined);
      await b.put(kvKey, storedValue(name, undefined, String(p), wrapped), { timeout: timeoutMs });
    }
  };

  /** Queues a consumer's whole local record: deletes of what only the bucket has, entries, position. */
  const copy = (consumer: string, remote: Remote | undefined): void => {
    const entries = local.list(consumer);
    const have = new Set(entries.map((e) => e.key));
    for (const k of remote?.entries.keys() ?? []) if (!have.has(k)) enqueue(consumer, k, null);
    for (const e of entries) enqueue(consumer, e.key, e.value);
    const p = local.position(consumer);
    if (p !== undefined) enqueue(consumer, undefined, String(p));
  };

  const drain = async (): Promise<void> => {
    while (queue.size > 0 || resync) {
      if (!mirroring()) {
        if (closed) {
          queue.clear();
          resync = false;
          return;
        }
        arm(GATE_POLL_MS);
        return;
      }
      try {
        const b = await bucket();
        if (resync) {
          // An overflow while copying asks for another copy.
          resync = false;
          copying = true;
          try {
            await copyAll(b);
          } catch (e) {
            resync = true;
            throw e;
          } finally {
            copying = false;
          }
        } else {
          // Entries in windows of up to WINDOW writes at once (a notifier writes one per send: one
          // at a time, the mirror falls behind a burst, and a new leader repeats what it missed); a
          // position alone, once the entries queued before it are written.
          const window: [string, Write][] = [];
          for (const [k, w] of queue) {
            const position = k.endsWith(".p");
            if (position && window.length > 0) break;
            window.push([k, w]);
            if (position || window.length >= WINDOW) break;
          }
          await Promise.all(
            window.map(([k, w]) =>
              w.value === null ? b.delete(k) : b.put(k, w.value, { timeout: timeoutMs }),
            ),
          );
          for (const [k, w] of window) if (queue.get(k) === w) queue.delete(k);
        }
        recovered();
      } catch (e) {
        failed(e);
        if (closed) {
          if (queue.size > 0)
            logger.warn("consumers' state mirror: writes dropped at close", { pending: queue.size });
          queue.clear();
          resync = false;
          return;
        }
        arm(retryMs);
        retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
        return;
      }
    }
  };

  const kick = (): void => {
    if (draining !== undefined || retryTimer !== undefined || nc === undefined) return;
    if (queue.size === 0 && !resync) return;
    draining = drain().finally(() => {
      draining = undefined;
    });
  };

  const readAll = async (b: KV): Promise<Map<string, Remote>> => {
    const out = new Map<string, Remote>();
    let skipped = 0;
    const add = (e: KvWatchEntry): void => {
      const deleted = e.operation !== "PUT";
      const p = parseConsumerKvEntry(e.key, deleted ? undefined : e.string());
      if (p === undefined) {
        skipped++;
        return;
      }
      let r = out.get(p.consumer);
      if (r === undefined) {
        r = { position: undefined, positionDeleted: false, entries: new Map() };
        out.set(p.consumer, r);
      }
      if (p.key !== undefined) {
        if (p.value === undefined) r.entries.delete(p.key);
        else r.entries.set(p.key, p.value);
      } else if (p.value === undefined) {
        r.position = undefined;
        r.positionDeleted = true;
      } else {
        const n = Number(p.value);
        if (Number.isSafeInteger(n) && n >= 0) {
          r.position = n;
          r.positionDeleted = false;
        } else skipped++;
      }
    };
    const it = await b.history();
    // An ordered consumer can stall across a reconnect: give up once nothing came for a while.
    let stalled = false;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const watch = (): void => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        stalled = true;
        it.stop();
      }, 2 * timeoutMs);
    };
    watch();
    try {
      for await (const e of it) {
        watch();
        add(e);
      }
    } finally {
      clearTimeout(idle);
    }
    if (stalled) throw new Error("reading the consumers' bucket stalled");
    if (skipped > 0)
      logger.warn("consumers' state mirror: bucket entries not understood, ignored", { skipped });
    for (const name of [...out.keys()]) if (name.startsWith("#")) out.delete(name);
    return out;
  };

  return {
    position: (consumer) => local.position(consumer),
    get: (consumer, key) => local.get(consumer, key),
    list: (consumer, prefix) => local.list(consumer, prefix),
    consumers: () => local.consumers(),
    put(consumer, entries, position) {
      local.put(consumer, entries, position);
      if (closed || !mirroring()) return;
      for (const e of entries) enqueue(consumer, e.key, e.value);
      if (position !== undefined) enqueue(consumer, undefined, String(position));
      kick();
    },
    forget(consumer) {
      const keys = local.list(consumer).map((e) => e.key);
      local.forget(consumer);
      if (closed || !mirroring()) return;
      for (const k of keys) enqueue(consumer, k, null);
      enqueue(consumer, undefined, null);
      kick();
    },
    close() {
      if (closed) return;
      closed = true;
      local.close();
      // One last pass over what is queued, without retries.
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      retryTimer = undefined;
      kick();
    },
    attach(conn) {
      nc = conn;
      kv = undefined;
      kick();
    },
    async pull() {
      if (nc === undefined) throw new Error("the consumers' state is not attached to NATS");
      // Queued writes are an earlier term's: the merge below decides what the bucket gets.
      queue.clear();
      resync = false;
      await draining;
      queue.clear();
      const remote = await readAll(await bucket());
      const names = new Set([...remote.keys(), ...local.consumers().map((c) => c.name)]);
      let taken = 0;
      let copied = 0;
      let forgotten = 0;
      for (const name of names) {
        const r = remote.get(name);
        const lp = local.position(name);
        if (r === undefined) {
          copy(name, undefined);
          copied++;
        } else if (r.positionDeleted && r.entries.size === 0) {
          local.forget(name);
          forgotten++;
        } else if ((lp ?? -1) > (r.position ?? -1)) {
          copy(name, r);
          copied++;
        } else {
          const entries: { key: string; value: string | null }[] = [];
          for (const e of local.list(name))
            if (!r.entries.has(e.key)) entries.push({ key: e.key, value: null });
          for (const [key, value] of r.entries) entries.push({ key, value });
          local.put(name, entries, r.position);
          taken++;
        }
      }
      logger.info("consumers' state pulled from NATS", { taken, copied, forgotten });
      retryMs = RETRY_START_MS;
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      retryTimer = undefined;
      kick();
    },
    async flush(ms = Number.POSITIVE_INFINITY) {
      const end = now() + ms;
      while (queue.size > 0 || resync || draining !== undefined) {
        const left = end - now();
        if (left <= 0) return false;
        const tick = new Promise<void>((r) => {
          setTimeout(r, Math.min(50, left)).unref?.();
        });
        await Promise.race([draining ?? tick, tick]);
      }
      return true;
    },
    get pending() {
      return queue.size;
    },
  };
}
