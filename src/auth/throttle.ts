import type { Clock } from "../model/clock.js";

/** Failed logins one peer may make per window before it is refused without a password check. */
export const FAILED_LOGINS_PER_WINDOW = 5;
/** The throttle's window. */
export const THROTTLE_WINDOW_MS = 60_000;
/** Peers remembered at most; the oldest are forgotten first (a flood of addresses cannot grow it). */
const MAX_PEERS = 10_000;

/** Counts failed logins per peer address. */
export interface LoginThrottle {
  /**
   * Whether the peer may try now, counting the attempt as a failure until it succeeds (so that
   * concurrent attempts cannot all pass before the first one fails); when not, how long until it may.
   */
  attempt(peer: string): { ok: true } | { ok: false; retryAfterMs: number };
  /** Forgets a peer's failures (a successful login). */
  succeeded(peer: string): void;
}

/**
 * A fixed-window counter per peer address (its host, without the port): after
 * FAILED_LOGINS_PER_WINDOW failed (or still running) attempts in a window, logins from it are refused until the window ends,
 * before any password is hashed — a flood of bad logins costs a map lookup each.
 */
export function createLoginThrottle(clock: Clock): LoginThrottle {
  const peers = new Map<string, { start: number; failures: number }>();
  const entry = (peer: string) => {
    const now = clock.now();
    let e = peers.get(peer);
    if (e === undefined || now - e.start >= THROTTLE_WINDOW_MS) {
      e = { start: now, failures: 0 };
      peers.delete(peer);
      peers.set(peer, e);
      if (peers.size > MAX_PEERS) peers.delete(peers.keys().next().value as string);
    }
    return e;
  };
  return {
    attempt(peer) {
      const e = entry(peer);
      if (e.failures >= FAILED_LOGINS_PER_WINDOW) {
        return { ok: false, retryAfterMs: e.start + THROTTLE_WINDOW_MS - clock.now() };
      }
      e.failures++;
      return { ok: true };
    },
    succeeded(peer) {
      peers.delete(peer);
    },
  };
}
