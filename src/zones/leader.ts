import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "../model/logger.js";
import { LEADER_BUCKET, LEADER_KEY } from "./names.js";

/** The leader lease: the key expires this long after the leader's last renewal (the bucket's max_age). */
export const LEASE_TTL_MS = 10_000;
/** How often the leader renews, and a standby tries to take, the lease. */
export const LEASE_RENEW_MS = 2_000;
/**
 * A leader that could not renew for this long steps down on its own, before its lease can have
 * expired and another server taken it: the two never lead at once by the clocks of one process.
 */
export const STEP_DOWN_AFTER_MS = LEASE_TTL_MS - 2 * LEASE_RENEW_MS;

export interface LeaderElection {
  /** The lease's revision when this server won it (the fencing token); undefined while standby. */
  readonly token: number | undefined;
  stop(): Promise<void>;
}

export interface LeaderOptions {
  readonly nc: NatsConnection;
  /** This server's name in the lease (for operators: who leads). */
  readonly id: string;
  readonly replicas: number;
  readonly logger: Logger;
  /** Called when this server becomes leader, with its fencing token; awaited before renewing. */
  readonly onElected: (token: number) => Promise<void>;
  /** Called when it stops being leader (lost the lease or could not renew in time); awaited. */
  readonly onLost: () => Promise<void>;
  readonly ttlMs?: number;
  readonly renewMs?: number;
  readonly now?: () => number;
  /**
   * Whether this server may take the lease now (default: always). A replica that has not caught up
   * with the command log waits (docs/replication.md): it would lead with state the log has moved past.
   */
  readonly ready?: () => boolean;
}

/**
 * Leader election on a JetStream KV key with a TTL: `create` succeeds only when the key is absent
 * (expired or deleted), so one server wins; the winner renews with `update` against the revision
 * it holds, which fails once anyone else wrote the key. The revision at winning is the fencing
 * token jobs carry (workers drop jobs of an older leader). A leader that cannot renew steps down
 * after `STEP_DOWN_AFTER_MS`, ahead of the lease's expiry.
 */
export async function startLeaderElection(o: LeaderOptions): Promise<LeaderElection> {
  const ttlMs = o.ttlMs ?? LEASE_TTL_MS;
  const renewMs = o.renewMs ?? LEASE_RENEW_MS;
  const stepDownAfter = ttlMs - 2 * renewMs;
  const now = o.now ?? Date.now;
  const kv: KV = await new Kvm(o.nc).create(LEADER_BUCKET, { ttl: ttlMs, history: 1, replicas: o.replicas });
  let token: number | undefined;
  let revision = 0;
  let renewedAt = 0;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();

  const lose = async (why: string) => {
    o.logger.warn("leadership lost", { reason: why, token });
    token = undefined;
    await o.onLost();
  };

  /** Deletes the lease this server holds, so a standby need not wait for it to expire. */
  const giveBack = async (): Promise<void> => {
    try {
      await kv.delete(LEADER_KEY, { previousSeq: revision });
    } catch {
      // It expires on its own.
    }
  };

  const step = async () => {
    if (token !== undefined) {
      try {
        revision = await kv.update(LEADER_KEY, o.id, revision);
        renewedAt = now();
      } catch (e) {
        const msg = String(e);
        if (/wrong last sequence|revision/i.test(msg)) await lose("another server holds the lease");
        else if (now() - renewedAt > stepDownAfter) await lose(`cannot renew the lease: ${msg}`);
      }
      return;
    }
    if (o.ready !== undefined && !o.ready()) return;
    try {
      revision = await kv.create(LEADER_KEY, o.id);
    } catch {
      // Someone holds the lease, or NATS is unreachable: stay standby.
      return;
    }
    renewedAt = now();
    token = revision;
    o.logger.info("leadership won", { token });
    try {
      await o.onElected(revision);
    } catch (e) {
      // A leader that cannot lead must not hold the lease: a standby would wait on it forever.
      o.logger.error("cannot lead; giving the lease back", { error: String(e) });
      await lose("could not start leading");
      await giveBack();
    }
  };

  // Apart from the renewal, which may hang while NATS is unreachable: the step-down is on time.
  const watchdog = setInterval(() => {
    if (token !== undefined && now() - renewedAt > stepDownAfter) {
      running = running.then(() =>
        token === undefined ? undefined : lose("cannot renew the lease in time"),
      );
    }
  }, renewMs / 2);

  const tick = () => {
    running = step().finally(() => {
      if (!stopped) timer = setTimeout(tick, renewMs);
    });
  };
  tick();
  await running;
  return {
    get token() {
      return token;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(watchdog);
      await running;
      if (token !== undefined) {
        await giveBack();
        token = undefined;
        await o.onLost();
      }
    },
  };
}
