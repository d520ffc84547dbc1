import type { Clock } from "../model/clock.js";

/** Failed logins one client address may make per window before it is refused without a password check. */
export const FAILED_LOGINS_PER_WINDOW = 5;
/**
 * Failed logins for one account name, from all addresses together, per window before that name's
 * logins are refused (except from an address that signed in as it before).
 */
export const FAILED_LOGINS_PER_ACCOUNT_PER_WINDOW = 10;
/** The throttle's window. */
export const THROTTLE_WINDOW_MS = 60_000;
/** Addresses, and account names, remembered at most; the oldest are forgotten first (a flood cannot grow them). */
const MAX_KEYS = 10_000;
/** Addresses remembered per account as having signed in as it (most recent kept). */
const KNOWN_ADDRESSES_PER_ACCOUNT = 8;

/** The throttle's answer: go on, or how long until the next attempt may be made. */
export type ThrottleVerdict = { ok: true } | { ok: false; retryAfterMs: number };

/** Counts failed logins per client address and per account name. */
export interface LoginThrottle {
  /**
   * Whether the client address may try now, counting the attempt as a failure until it succeeds
   * (so that concurrent attempts cannot all pass before the first one fails). Asked before the
   * request body is read.
   */
  attempt(client: string): ThrottleVerdict;
  /**
   * Whether a login for `name` may be checked now, counted like `attempt`. An address that signed
   * in as `name` before is not held back by the account's count (only by its own).
   */
  attemptAccount(name: string, client: string): ThrottleVerdict;
  /** Forgets the address's and the account's failures and remembers the address for the account. */
  succeeded(client: string, name: string): void;
}

/** A fixed-window failure counter per key, bounded in keys. */
function createWindows(clock: Clock, limit: number) {
  const windows = new Map<string, { start: number; failures: number }>();
  return {
    attempt(key: string): ThrottleVerdict {
      const now = clock.now();
      let e = windows.get(key);
      if (e === undefined || now - e.start >= THROTTLE_WINDOW_MS) {
        e = { start: now, failures: 0 };
        windows.delete(key);
        windows.set(key, e);
        if (windows.size > MAX_KEYS) windows.delete(windows.keys().next().value as string);
      }
      if (e.failures >= limit) return { ok: false, retryAfterMs: e.start + THROTTLE_WINDOW_MS - now };
      e.failures++;
      return { ok: true };
    },
    forget(key: string): void {
      windows.delete(key);
    },
  };
}

/**
 * Fixed-window counters, answered before any password is hashed — a flood of bad logins costs a
 * map lookup each:
 * - per client address (the peer's, or the one -trusted-proxies lets X-Forwarded-For name):
 *   after FAILED_LOGINS_PER_WINDOW failed (or still running) attempts in a window, refused until
 *   the window ends;
 * - per account name, whatever the address: after FAILED_LOGINS_PER_ACCOUNT_PER_WINDOW, refused
 *   until the window ends, so a guess spread over many addresses is slowed too. It limits the rate
 *   and never locks an account for longer than a window; and an address that signed in as the
 *   account before (the last KNOWN_ADDRESSES_PER_ACCOUNT, kept in memory) is exempt, so an attacker
 *   who keeps an admin's name busy does not lock the admin out of their usual address. Unknown
 *   names are counted the same, so the answers do not tell which names exist.
 */
export function createLoginThrottle(clock: Clock): LoginThrottle {
  const addresses = createWindows(clock, FAILED_LOGINS_PER_WINDOW);
  const accounts = createWindows(clock, FAILED_LOGINS_PER_ACCOUNT_PER_WINDOW);
  const known = new Map<string, string[]>();
  return {
    attempt: (client) => addresses.attempt(client),
    attemptAccount(name, client) {
      if (known.get(name)?.includes(client) === true) return { ok: true };
      return accounts.attempt(name);
    },
    succeeded(client, name) {
      addresses.forget(client);
      accounts.forget(name);
      const list = (known.get(name) ?? []).filter((a) => a !== client);
      list.push(client);
      if (list.length > KNOWN_ADDRESSES_PER_ACCOUNT) list.shift();
      known.delete(name);
      known.set(name, list);
      if (known.size > MAX_KEYS) known.delete(known.keys().next().value as string);
    },
  };
}
