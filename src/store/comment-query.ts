import { RejectedError } from "./errors.js";
import type { ObjectIndex } from "./object-index.js";
import type { Projection } from "./projection.js";
import type { CommentRecord } from "./records.js";

/** What ListComments selects: one host and its services, one service, or every object. */
export interface CommentQuery {
  readonly host?: string;
  readonly service?: string;
  /** 1..1000; the API layer applies defaults and clamping. */
  readonly pageSize: number;
  readonly pageToken?: string;
}

/**
 * ListComments: the projection's comments (operators' and acknowledgements'), newest first, then
 * by id, a page at a time; a page token names the last comment returned.
 */
export function listComments(
  index: ObjectIndex,
  projection: Projection,
  q: CommentQuery,
): { readonly items: readonly CommentRecord[]; readonly nextPageToken: string; readonly totalSize: number } {
  let test: ((key: string) => boolean) | undefined;
  if (q.host !== undefined) {
    const host = q.host;
    if (q.service !== undefined) {
      const key = `${host}!${q.service}`;
      if (index.position(key) === undefined)
        throw new RejectedError("not_found", `service "${key}" is not configured`);
      test = (k) => k === key;
    } else {
      const [lo, hi] = index.hostRange(host);
      if (lo === hi) throw new RejectedError("not_found", `host "${host}" is not configured`);
      test = (k) => k === host || k.startsWith(`${host}!`);
    }
  } else if (q.service !== undefined) {
    throw new RejectedError("invalid", "service given without host");
  }
  const matched: CommentRecord[] = [];
  for (const c of projection.comments().values()) if (test === undefined || test(c.key)) matched.push(c);
  matched.sort(newestFirst);
  let from = 0;
  if (q.pageToken) {
    const after = decodeToken(q.pageToken);
    while (from < matched.length && newestFirst(matched[from] as CommentRecord, after) <= 0) from++;
  }
  const items = matched.slice(from, from + q.pageSize);
  const last = items[items.length - 1];
  const more = from + q.pageSize < matched.length;
  return { items, totalSize: matched.length, nextPageToken: more && last ? encodeToken(last) : "" };
}

function newestFirst(
  a: Pick<CommentRecord, "created" | "id">,
  b: Pick<CommentRecord, "created" | "id">,
): number {
  return b.created - a.created || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function encodeToken(c: CommentRecord): string {
  return Buffer.from(`c:${c.created}:${c.id}`).toString("base64url");
}

function decodeToken(token: string): Pick<CommentRecord, "created" | "id"> {
  const m = /^c:(-?[0-9]{1,16}):(.+)$/s.exec(Buffer.from(token, "base64url").toString());
  if (m === null) throw new RejectedError("invalid", "invalid page token");
  return { created: Number(m[1]), id: m[2] as string };
}
