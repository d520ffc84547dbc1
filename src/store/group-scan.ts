import type { LookoutEvent } from "../model/events.js";

/**
 * The offsets at which the elements of a JSON array of objects begin, as JSON.stringify writes
 * one (no whitespace): the `{` of each top-level element. Strings are skipped by their quotes
 * (an escaped quote does not end one), so braces inside outputs never count.
 */
export function elementStarts(text: string): number[] {
  const starts: number[] = [];
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // To the closing quote: the next quote not escaped by an odd run of backslashes.
      let j = text.indexOf('"', i + 1);
      for (;;) {
        if (j < 0) return starts;
        let b = 0;
        while (text.charCodeAt(j - 1 - b) === 92) b++;
        if (b % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      i = j;
    } else if (c === 123 || c === 91) {
      if (depth === 1 && c === 123) starts.push(i);
      depth++;
    } else if (c === 125 || c === 93) {
      depth--;
    }
  }
  return starts;
}

/**
 * The events of a group's JSON text (an array of `count` events) in which `needle` (a global
 * RegExp) matches, by their index in the group, parsed one by one instead of the whole group: a
 * group of a thousand results with a few state changes costs a scan of its text and a few small
 * parses, not the parse of every result. A match inside an event's nested value selects that
 * event too (the caller checks what it got). When the text is not laid out as expected, the whole
 * group is parsed.
 */
export function eventsMatching(text: string, needle: RegExp, count: number): Map<number, LookoutEvent> {
  const out = new Map<number, LookoutEvent>();
  needle.lastIndex = 0;
  let m = needle.exec(text);
  if (m === null) return out;
  const starts = elementStarts(text);
  const end = text.lastIndexOf("]");
  if (starts.length !== count || end < 0) {
    // Not the layout expected: every event, so that nothing is missed (the caller filters).
    const all = JSON.parse(text) as LookoutEvent[];
    for (let k = 0; k < all.length; k++) out.set(k, all[k] as LookoutEvent);
    return out;
  }
  for (; m !== null; m = needle.exec(text)) {
    const k = lastAtOrBefore(starts, m.index);
    if (k < 0 || out.has(k)) continue;
    const to = k + 1 < starts.length ? (starts[k + 1] as number) - 1 : end;
    out.set(k, JSON.parse(text.slice(starts[k], to)) as LookoutEvent);
    // The rest of this event holds nothing more to find.
    if (needle.lastIndex < to) needle.lastIndex = to;
  }
  return out;
}

/** The index of the last start at or before offset (-1: none). */
function lastAtOrBefore(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] as number) <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/**
 * The events of a group's JSON text (an array of `count` events, as JSON.stringify writes it) by
 * their index in the group, each parsed alone when asked for: the text is scanned once for where
 * its elements begin. When it is not laid out as expected, the whole group is parsed. An index
 * outside the group gives undefined.
 */
export function groupEvents(text: string, count: number): (index: number) => LookoutEvent | undefined {
  const starts = elementStarts(text);
  const end = text.lastIndexOf("]");
  if (starts.length !== count || end < 0) {
    const all = JSON.parse(text) as LookoutEvent[];
    return (k) => all[k];
  }
  return (k) => {
    if (!Number.isInteger(k) || k < 0 || k >= starts.length) return undefined;
    const to = k + 1 < starts.length ? (starts[k + 1] as number) - 1 : end;
    return JSON.parse(text.slice(starts[k], to)) as LookoutEvent;
  };
}
