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

/** How every event begins as JSON.stringify writes it: `type` is each event's first field. */
const EVENT_START = Buffer.from('{"type":"');

/**
 * groupEvents over a group's bytes, finding where its events begin without decoding or walking
 * the text: each begins with `{"type":"` after the array's `[` or a `,` (a quote inside a string is
 * escaped, so those bytes are never in one). Undefined when that does not find exactly `count`
 * places (an event laid out otherwise, or a nested object that looks like one): then use
 * groupEvents. The caller checks that an event found is the one it expects.
 */
export function groupEventsQuick(
  bytes: Buffer,
  count: number,
): ((index: number) => LookoutEvent | undefined) | undefined {
  const starts: number[] = [];
  for (let i = bytes.indexOf(EVENT_START); i >= 0; i = bytes.indexOf(EVENT_START, i + EVENT_START.length)) {
    const before = bytes[i - 1];
    if (before === 0x5b || before === 0x2c) {
      if (starts.length === count) return undefined;
      starts.push(i);
    }
  }
  const end = bytes.lastIndexOf(0x5d);
  if (starts.length !== count || starts[0] !== 1 || end < 0) return undefined;
  return (k) => {
    if (!Number.isInteger(k) || k < 0 || k >= count) return undefined;
    const to = k + 1 < count ? (starts[k + 1] as number) - 1 : end;
    try {
      return JSON.parse(bytes.toString("utf8", starts[k], to)) as LookoutEvent;
    } catch {
      // Not an event's bounds after all: the caller falls back to groupEvents.
      return undefined;
    }
  };
}
