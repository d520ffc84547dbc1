import type { LookoutEvent } from "../model/events.js";
import { type HistoryMark, packBody } from "./event-log.js";
import { historyKeyOf } from "./history-of-event.js";

/** Events serialized at a time: small enough that they die young, large enough for JSON.stringify. */
const GROUP = 64;
/** The text buffer's size: a row of 1,000 results is ~600 KB of JSON. */
const INITIAL = 1 << 20;
/** The largest buffer kept for the next row. */
const KEEP = 4 * INITIAL;

/**
 * The body of one events row (the JSON array of the events one command row produced, packed as the
 * log stores it), built as the events come: every few dozen events are serialized into a reusable
 * buffer and let go of. Holding a row's events until the end — a row can be a batch of a thousand
 * results, a few megabytes of objects — made them outlive the writer's young-generation
 * collections, so most of them were promoted and then marked and compacted by V8's helper threads,
 * which run at normal priority and compete with reads (docs/storage.md, "Latency"). The text is
 * exactly JSON.stringify of the row's events. Not re-entrant: one row at a time.
 */
export interface EventRowWriter {
  /** Events added since the last `take`. */
  readonly count: number;
  add(event: LookoutEvent): void;
  /**
   * The events added since the last take that make a history entry (historyKeyOf), by their place
   * in the row: what the log's `history` table indexes. Call before take; undefined: none.
   */
  takeHistory(): HistoryMark[] | undefined;
  /** The packed body of the events added since the last take (call only when count > 0); starts a new row. */
  take(): Buffer;
}

export function createEventRowWriter(): EventRowWriter {
  let buf = Buffer.allocUnsafeSlow(INITIAL);
  /** Bytes written to buf; 0 until the row's first group. */
  let used = 0;
  let count = 0;
  let group: LookoutEvent[] = [];
  let marks: HistoryMark[] | undefined;

  const append = (text: string): void => {
    const need = used + Buffer.byteLength(text);
    if (need > buf.length) {
      let size = buf.length * 2;
      while (size < need) size *= 2;
      const bigger = Buffer.allocUnsafeSlow(size);
      buf.copy(bigger, 0, 0, used);
      buf = bigger;
    }
    used += buf.write(text, used);
  };
  const flush = (): void => {
    if (group.length === 0) return;
    const json = JSON.stringify(group);
    // `[a,b]` and `[c]` make `[a,b,c]`: the first group keeps its `[`, later ones join with a comma.
    append(used === 0 ? json.slice(0, -1) : `,${json.slice(1, -1)}`);
    group = [];
  };

  return {
    get count() {
      return count;
    },
    add(event) {
      const key = historyKeyOf(event);
      if (key !== undefined) {
        marks ??= [];
        marks.push({ index: count, key, kind: event.type });
      }
      group.push(event);
      count++;
      if (group.length >= GROUP) flush();
    },
    takeHistory() {
      const m = marks;
      marks = undefined;
      return m;
    },
    take() {
      flush();
      append("]");
      const body = packBody(buf.subarray(0, used));
      used = 0;
      count = 0;
      marks = undefined;
      // An exceptionally big row does not keep its buffer.
      if (buf.length > KEEP) buf = Buffer.allocUnsafeSlow(INITIAL);
      return body;
    },
  };
}
