import type { Clock } from "../model/clock.js";

/** Failed logins one peer may make per window before it is refused without a password check. */
export const FAILED_LOGINS_PER_WINDOW = 5;
/** The throttle's window. */
export const THROTTLE_WINDOW_MS = 60_000;
/** Peers remembered at most; the oldest are forgotten first (a flood of addresses cannot grow it). */
const MAX_PEERS = 10_000;

/** Counts failed logins per peer address. */
export interface LoginThrottle {
  /** Whether the peer may try now; when not, how long until it may (ms). */
  allowed(peer: string): { ok: true } | { ok: false; retryAfterMs: number };
  /** Records a failed login. */
  failed(peer: string): void;
  /** Forgets a peer's failures (a successful login). */
  succeeded(peer: string): void;
}

/**
 * A fixed-window counter per peer address (its host, without the port): after
 * FAILED_LOGINS_PER_WINDOW failures in a window, logins from it are refused until the window ends,
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
    allowed(peer) {
      const e = entry(peer);
      if (e.failures < FAILED_LOGINS_PER_WINDOW) return { ok: true };
      return { ok: false, retryAfterMs: e.start + THROTTLE_WINDOW_MS - clock.now() };
    },
    failed(peer) {
      entry(peer).failures++;
    },
    succeeded(peer) {
      peers.delete(peer);
    },
  };
}
