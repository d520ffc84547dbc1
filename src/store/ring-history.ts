import type { HistoryView } from "./projection.js";
import type { HistoryRecord } from "./records.js";

/**
 * A newest-first page of the projection's history ring (the newest entries, in memory): the
 * entries below `cursor` (a sequence number; undefined: from the newest), of one object or
 * (`key` undefined) of all, at most `limit`; `cursor` of the answer is where the next page starts
 * (undefined: none). Undefined when the ring cannot tell the same answer as the log: the page, or
 * the knowledge that nothing older matches, lies beyond the entries it keeps. The ring holds every
 * entry of the log while it has never dropped one (fewer entries than its capacity); the log may
 * meanwhile have let its oldest events go by retention, which the ring then still shows.
 */
export function ringHistoryPage(
  h: HistoryView,
  key: string | undefined,
  cursor: number | undefined,
  limit: number,
): { readonly items: readonly HistoryRecord[]; readonly cursor?: number } | undefined {
  let i = h.size - 1;
  if (cursor !== undefined) {
    // First position whose seq >= cursor; the page starts just below it.
    let lo = 0;
    let hi = h.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (h.seqAt(mid) < cursor) lo = mid + 1;
      else hi = mid;
    }
    i = lo - 1;
  }
  const items: HistoryRecord[] = [];
  for (; i >= 0; i--) {
    if (key !== undefined && h.keyAt(i) !== key) continue;
    // One more than the page: the next one is not empty.
    if (items.length === limit) return { items, cursor: (items[items.length - 1] as HistoryRecord).seq };
    items.push(h.at(i));
  }
  return h.size < h.capacity ? { items } : undefined;
}
