import { createHash, randomBytes } from "node:crypto";

/** The lowercase hex SHA-256 of a bearer token: what the identities document holds (`token_sha256`). */
export function tokenSha256(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** A new random bearer token (32 bytes, base64url, prefixed `lk_`) and its `token_sha256`. */
export function mintToken(): { token: string; sha256: string } {
  const token = `lk_${randomBytes(32).toString("base64url")}`;
  return { token, sha256: tokenSha256(token) };
}

/** The token of an `Authorization: Bearer <token>` header value; undefined for anything else. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  return m === null ? undefined : (m[1] as string);
}
