import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "../model/clock.js";

/** The dashboard's session cookie. */
export const SESSION_COOKIE = "lookout_session";

/**
 * The shortest -session-secret accepted, in bytes (UTF-8): 256 bits, HMAC-SHA256's key strength. A
 * shorter secret can be guessed offline from one cookie, and a guessed secret signs an admin session.
 */
export const MIN_SESSION_SECRET_BYTES = 32;

/** Why a -session-secret cannot sign sessions; undefined when it can. Never quotes the secret. */
export function sessionSecretProblem(secret: string): string | undefined {
  const bytes = Buffer.byteLength(secret, "utf8");
  if (bytes >= MIN_SESSION_SECRET_BYTES) return undefined;
  return (
    `-session-secret (or LOOKOUT_SESSION_SECRET) is ${bytes} bytes: it must be at least ` +
    `${MIN_SESSION_SECRET_BYTES} random bytes, or a forged cookie can be signed with a guessed secret. ` +
    "Make one with: openssl rand -base64 48"
  );
}

/** A secret for a server started without -session-secret: its sessions end with the process. */
export function randomSessionSecret(): string {
  return randomBytes(48).toString("base64");
}

/** How long a session lasts after login. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** What a session cookie says: who logged in, when it ends, and its id (for logout). */
export interface SessionClaims {
  readonly name: string;
  /** Expiry, Unix ms. */
  readonly expires: number;
  readonly id: string;
}

/** Issues and checks session cookies signed with -session-secret. */
export interface Sessions {
  /** A new session's cookie value for `name`. */
  issue(name: string): { value: string; claims: SessionClaims };
  /**
   * The claims of a cookie value that is signed with the secret, not expired and not logged out;
   * undefined otherwise (forged, expired, from before a secret rotation, logged out).
   */
  verify(value: string): SessionClaims | undefined;
  /** Ends a session before its expiry (logout). */
  revoke(claims: SessionClaims): void;
}

/**
 * Sessions as signed cookies: `<payload>.<mac>`, payload the base64url JSON of the claims, mac its
 * HMAC-SHA256 under the secret (compared in constant time). Nothing is stored but the ids of
 * sessions logged out before their expiry (forgotten once they expire, and at restart: a cookie
 * copied before logout works until its expiry after a restart — rotate the secret to end all).
 */
export function createSessions(secret: string, clock: Clock): Sessions {
  const mac = (payload: string) => createHmac("sha256", secret).update(payload).digest();
  const revoked = new Map<string, number>();
  const sweep = (now: number) => {
    for (const [id, expires] of revoked) if (expires <= now) revoked.delete(id);
  };
  return {
    issue(name) {
      const claims: SessionClaims = {
        name,
        expires: clock.now() + SESSION_TTL_MS,
        id: randomBytes(12).toString("base64url"),
      };
      const payload = Buffer.from(
        JSON.stringify({ n: claims.name, e: claims.expires, i: claims.id }),
      ).toString("base64url");
      return { value: `${payload}.${mac(payload).toString("base64url")}`, claims };
    },
    verify(value) {
      const dot = value.indexOf(".");
      if (dot <= 0) return undefined;
      const payload = value.slice(0, dot);
      const given = Buffer.from(value.slice(dot + 1), "base64url");
      const want = mac(payload);
      if (given.length !== want.length || !timingSafeEqual(given, want)) return undefined;
      let c: { n?: unknown; e?: unknown; i?: unknown };
      try {
        c = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as typeof c;
      } catch {
        return undefined;
      }
      if (typeof c.n !== "string" || typeof c.e !== "number" || typeof c.i !== "string") return undefined;
      if (c.e <= clock.now() || revoked.has(c.i)) return undefined;
      return { name: c.n, expires: c.e, id: c.i };
    },
    revoke(claims) {
      sweep(clock.now());
      revoked.set(claims.id, claims.expires);
    },
  };
}

/** The value of one cookie in a Cookie header; undefined when absent. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
