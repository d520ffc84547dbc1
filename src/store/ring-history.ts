import type { HistoryView } from "./projection.js";
import type { HistoryRecord } from "./records.js";

/**
 * What the ring answers of a newest-first page: its entries, and either where the next page starts
 * (`cursor`; neither: this is the last page) or, when the page (or the knowledge that nothing
 * older matches) lies beyond the entries the ring keeps, `below`: the rest of the page is in the
 * log, below that sequence number (the ring's oldest entry, or the cursor if lower).
 */
export interface RingPage {
  readonly items: readonly HistoryRecord[];
  readonly cursor?: number;
  readonly below?: number;
}

/**
 * A newest-first page of the projection's history ring (the newest entries, in memory): the
 * entries below `cursor` (a sequence number; undefined: from the newest), of one object or
 * (`key` undefined) of all, at most `limit`. The ring holds every history entry of the log from
 * its oldest entry on (entries arrive in the log's order), and every one of the log while it has
 * never dropped one (fewer entries than its capacity); the log may meanwhile have let its oldest
 * events go by retention, which the ring then still shows.
 */
export function ringHistoryPage(
  h: HistoryView,
  key: string | undefined,
  cursor: number | undefined,
  limit: number,
): RingPage {
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
  if (h.size < h.capacity) return { items };
  const oldest = h.size === 0 ? Number.POSITIVE_INFINITY : h.seqAt(0);
  return { items, below: Math.min(oldest, cursor ?? Number.POSITIVE_INFINITY) };
}
