/**
 * Nagios threshold ranges, with the semantics of the monitoring-plugins development guidelines:
 * `10` is 0..10, `10:` is 10..∞, `~:10` is -∞..10, `10:20` is 10..20, and a value alerts when it lies
 * OUTSIDE the range, inclusive of the endpoints; a leading `@` inverts that (alert when inside).
 */

/** A parsed threshold range. */
export interface NagiosRange {
  /** The text it was parsed from, trimmed. */
  readonly text: string;
  /** Lower bound; -Infinity for `~`. */
  readonly start: number;
  /** Upper bound; Infinity when omitted (`10:`). */
  readonly end: number;
  /** true for `@`: alert when start <= value <= end. */
  readonly inside: boolean;
  /** Whether this value should raise the alert the range stands for. */
  alerts(value: number): boolean;
}

/** Thrown by parseRange for text that is not a Nagios range; the message says why. */
export class RangeSyntaxError extends Error {
  override readonly name = "RangeSyntaxError";
}

// A plain decimal number: optional sign, digits with optional fraction (or a bare fraction), optional
// exponent. Stricter than strtod on purpose: "10abc" is a typo, not 10.
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function parseBound(text: string, whole: string): number {
  if (!NUMBER.test(text))
    throw new RangeSyntaxError(`invalid threshold range "${whole}": "${text}" is not a number`);
  return Number(text);
}

/**
 * Parses a Nagios range. Throws RangeSyntaxError for empty text, a non-numeric bound, or a start
 * greater than the end. An empty start before `:` means 0, as in monitoring-plugins (`:10` is 0..10).
 */
export function parseRange(text: string): NagiosRange {
  const whole = text.trim();
  let body = whole;
  let inside = false;
  if (body.startsWith("@")) {
    inside = true;
    body = body.slice(1);
  }
  if (body === "") throw new RangeSyntaxError(`invalid threshold range "${whole}": empty`);
  let start = 0;
  let end = Number.POSITIVE_INFINITY;
  const colon = body.indexOf(":");
  if (colon < 0) {
    end = parseBound(body, whole);
  } else {
    const s = body.slice(0, colon);
    const e = body.slice(colon + 1);
    if (s === "~") start = Number.NEGATIVE_INFINITY;
    else if (s !== "") start = parseBound(s, whole);
    if (e !== "") end = parseBound(e, whole);
  }
  if (start > end) {
    throw new RangeSyntaxError(
      `invalid threshold range "${whole}": start ${start} is greater than end ${end}`,
    );
  }
  return {
    text: whole,
    start,
    end,
    inside,
    alerts(value: number): boolean {
      if (Number.isNaN(value)) return true;
      const within = start <= value && value <= end;
      return inside ? within : !within;
    },
  };
}
