import { createHash } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";

/** What a ListHistory page token is bound to: every field of the request but the page's size and token. */
export interface HistoryFilters {
  readonly host?: string;
  readonly service?: string;
  readonly selector: string;
  readonly kinds: readonly string[];
  /** Ms since the epoch. */
  readonly since?: number;
  readonly until?: number;
  readonly oldestFirst: boolean;
}

/** The fingerprint of a request's filters (kinds as a set: their order and repeats do not matter). */
function fingerprint(f: HistoryFilters): string {
  const canonical = JSON.stringify([
    f.host ?? null,
    f.service ?? null,
    f.selector.trim(),
    [...new Set(f.kinds)].sort(),
    f.since ?? null,
    f.until ?? null,
    f.oldestFirst,
  ]);
  return createHash("sha256").update(canonical).digest("base64url").slice(0, 16);
}

/**
 * A ListHistory page token: where the previous page stopped (a log sequence number, exclusive:
 * newest first the next page holds older events, oldest first newer ones) and the fingerprint of
 * the request that made it. Opaque to callers (base64url); a sequence number never moves, so
 * events appended meanwhile never shift a page.
 */
export function encodeHistoryToken(f: HistoryFilters, cursor: number): string {
  return Buffer.from(`h1.${fingerprint(f)}.${cursor}`).toString("base64url");
}

/**
 * The cursor of a page token for the request `f`; undefined for the empty token (the first page).
 * invalid_argument for a token that is not one, or one made for a request with other filters.
 */
export function decodeHistoryToken(f: HistoryFilters, token: string): number | undefined {
  if (token === "") return undefined;
  const text = /^[A-Za-z0-9_-]+$/.test(token) ? Buffer.from(token, "base64url").toString() : "";
  const m = /^h1\.([A-Za-z0-9_-]{16})\.([1-9][0-9]{0,15})$/.exec(text);
  const cursor = m === null ? Number.NaN : Number(m[2]);
  if (m === null || !Number.isSafeInteger(cursor)) {
    throw new ConnectError("page_token is malformed", Code.InvalidArgument);
  }
  if (m[1] !== fingerprint(f)) {
    throw new ConnectError(
      "page_token belongs to a request with other filters (host, service, selector, kinds, since, until, oldest_first)",
      Code.InvalidArgument,
    );
  }
  return cursor;
}
