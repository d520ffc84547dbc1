import { createHash, timingSafeEqual } from "node:crypto";
import type { Identities } from "./identities.js";
import { type Principal, type Role, roleAtLeast } from "./roles.js";
import { cookieValue, SESSION_COOKIE, type Sessions } from "./session.js";
import { bearerToken, tokenSha256 } from "./token.js";

/** The API's three services, as the gate knows them. */
export type Surface = "query" | "command" | "admin";

/** The credentials a request carries: its Authorization and Cookie headers. */
export interface Credentials {
  readonly authorization?: string | undefined;
  readonly cookie?: string | undefined;
}

/**
 * The gate's answer: pass (with who, when someone was authenticated), or why not — with who, when
 * the credentials named someone whose role is not enough (for the audit record of the refusal).
 */
export type GateAnswer =
  | { readonly ok: true; readonly principal?: Principal }
  | {
      readonly ok: false;
      readonly reason: "unauthenticated" | "permission_denied";
      readonly message: string;
      readonly principal?: Principal;
    };

/** Decides whether a request may use a service. Synchronous and cheap: no password is hashed here. */
export interface AuthGate {
  check(surface: Surface, credentials: Credentials): GateAnswer;
  /** Resolves credentials to a principal without a role check (undefined: nobody). */
  resolve(credentials: Credentials): Principal | undefined;
}

/** The principal of a caller who sent the -api-token: it names no one, and may write. */
export const API_TOKEN_PRINCIPAL: Principal = { name: "-api-token", role: "operator" };

export interface AuthGateOptions {
  /** -api-token; empty: none. */
  readonly apiToken: string;
  /** The identities in force (they change on SIGHUP); undefined without -auth-config. */
  readonly identities?: () => Identities;
  /** Session cookies; present with -auth-config. */
  readonly sessions?: Sessions;
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** The role each service needs under -auth-config. */
export function requiredRole(surface: Surface): Role {
  switch (surface) {
    case "query":
      return "viewer";
    case "command":
      return "operator";
    case "admin":
      return "admin";
    default: {
      const never: never = surface;
      throw new Error(`unknown surface ${String(never)}`);
    }
  }
}

/**
 * The one gate of every route and fast path (docs/auth.md). Without -auth-config it is the
 * reference's: QueryService open, CommandService open or behind -api-token (constant-time). With
 * -auth-config every service needs an identity — by bearer token (its SHA-256 looked up in the
 * document) or session cookie — of at least viewer (Query), operator (Command) or admin (Admin);
 * the -api-token, when also set, stands for an operator without a name. A request whose
 * Authorization header names no one is refused even if it also carries a valid cookie.
 */
export function createAuthGate(o: AuthGateOptions): AuthGate {
  const apiDigest = o.apiToken === "" ? undefined : digest(o.apiToken);
  const isApiToken = (token: string) => apiDigest !== undefined && timingSafeEqual(digest(token), apiDigest);
  const resolveWith = (c: Credentials): { principal?: Principal; message: string } => {
    if (c.authorization !== undefined && c.authorization !== "") {
      const token = bearerToken(c.authorization);
      if (token === undefined) return { message: "missing bearer token" };
      if (isApiToken(token)) return { principal: API_TOKEN_PRINCIPAL, message: "" };
      const identity = o.identities?.().byToken.get(tokenSha256(token));
      return identity === undefined
        ? { message: "invalid bearer token" }
        : { principal: { name: identity.name, role: identity.role }, message: "" };
    }
    const cookie = cookieValue(c.cookie, SESSION_COOKIE);
    if (cookie !== undefined && o.sessions !== undefined) {
      const claims = o.sessions.verify(cookie);
      const identity = claims === undefined ? undefined : o.identities?.().byName.get(claims.name);
      return identity === undefined
        ? { message: "the session has expired or is not valid: log in again" }
        : { principal: { name: identity.name, role: identity.role, signedIn: true }, message: "" };
    }
    return {
      message:
        o.identities === undefined ? "missing bearer token" : "no credentials: send a bearer token or log in",
    };
  };
  return {
    resolve: (c) => resolveWith(c).principal,
    check(surface, c) {
      if (o.identities === undefined) {
        if (surface !== "command" || apiDigest === undefined) return { ok: true };
        const token = bearerToken(c.authorization);
        if (token === undefined)
          return { ok: false, reason: "unauthenticated", message: "missing bearer token" };
        return isApiToken(token)
          ? { ok: true, principal: API_TOKEN_PRINCIPAL }
          : { ok: false, reason: "unauthenticated", message: "invalid bearer token" };
      }
      const r = resolveWith(c);
      if (r.principal === undefined) return { ok: false, reason: "unauthenticated", message: r.message };
      const want = requiredRole(surface);
      if (!roleAtLeast(r.principal.role, want)) {
        return {
          ok: false,
          reason: "permission_denied",
          message: `role ${r.principal.role} may not use this service: it needs ${want}`,
          principal: r.principal,
        };
      }
      return { ok: true, principal: r.principal };
    },
  };
}
