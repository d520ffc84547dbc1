import { createHash, timingSafeEqual } from "node:crypto";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Checks an Authorization header value: undefined when it passes, else the error to answer. */
export type AuthorizationCheck = (authorization: string | undefined) => ConnectError | undefined;

/** The checks behind the interceptors made here, for callers that serve a request without one. */
const checks = new WeakMap<Interceptor, AuthorizationCheck>();

/**
 * Requires `Authorization: Bearer <token>` on every call. Both sides are hashed before the
 * constant-time comparison, so neither the token's content nor its length leaks through timing.
 * The token never appears in an error message or a log line.
 */
export function createBearerTokenInterceptor(token: string): Interceptor {
  const want = digest(token);
  const check: AuthorizationCheck = (header) => {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
    if (m === null || !timingSafeEqual(digest(m[1] as string), want)) {
      return new ConnectError(
        m === null ? "missing bearer token" : "invalid bearer token",
        Code.Unauthenticated,
      );
    }
    return undefined;
  };
  const interceptor: Interceptor = (next) => async (req) => {
    const refused = check(req.header.get("authorization") ?? undefined);
    if (refused !== undefined) throw refused;
    return next(req);
  };
  checks.set(interceptor, check);
  return interceptor;
}

/**
 * The header check of an interceptor made by createBearerTokenInterceptor, so that a request served
 * outside the Connect router is gated exactly alike; undefined for any other interceptor.
 */
export function bearerTokenCheck(interceptor: Interceptor): AuthorizationCheck | undefined {
  return checks.get(interceptor);
}
