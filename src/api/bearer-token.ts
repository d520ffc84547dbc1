import { createHash, timingSafeEqual } from "node:crypto";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/**
 * Requires `Authorization: Bearer <token>` on every call. Both sides are hashed before the
 * constant-time comparison, so neither the token's content nor its length leaks through timing.
 * The token never appears in an error message or a log line.
 */
export function createBearerTokenInterceptor(token: string): Interceptor {
  const want = digest(token);
  return (next) => async (req) => {
    const header = req.header.get("authorization") ?? "";
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (m === null || !timingSafeEqual(digest(m[1] as string), want)) {
      throw new ConnectError(
        m === null ? "missing bearer token" : "invalid bearer token",
        Code.Unauthenticated,
      );
    }
    return next(req);
  };
}
