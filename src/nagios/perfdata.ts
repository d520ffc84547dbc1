import type { PerfDatum } from "../model/check-result.js";

/**
 * Perfdata as the Nagios plugin guidelines define it: space-separated items
 * `'label'=value[uom];[warn];[crit];[min];[max]`, where a label with spaces or `=` is single-quoted
 * and a quote inside a quoted label is doubled (`'it''s'`).
 */

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const WHITESPACE = /\s/;

/**
 * Parses a perfdata string into points. Never throws: an item that is not well formed (no `=`, an
 * unterminated quote, a value that is not a number, such as Nagios' `U` for "unknown") is skipped,
 * and parsing resumes at the next whitespace.
 */
export function parsePerfdata(text: string): PerfDatum[] {
  const out: PerfDatum[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && WHITESPACE.test(text[i] as string)) i++;
    if (i >= n) break;
    let label = "";
    let ok = true;
    if (text[i] === "'") {
      i++;
      let closed = false;
      while (i < n) {
        const c = text[i] as string;
        if (c === "'") {
          if (text[i + 1] === "'") {
            label += "'";
            i += 2;
            continue;
          }
          i++;
          closed = true;
          break;
        }
        label += c;
        i++;
      }
      if (!closed || text[i] !== "=") ok = false;
    } else {
      const startLabel = i;
      while (i < n && text[i] !== "=" && !WHITESPACE.test(text[i] as string)) i++;
      label = text.slice(startLabel, i);
      if (text[i] !== "=") ok = false;
    }
    // The value part runs to the next whitespace; a bad item is skipped up to there.
    const startValue = ok ? i + 1 : i;
    let j = startValue;
    while (j < n && !WHITESPACE.test(text[j] as string)) j++;
    if (ok && label !== "") {
      const datum = parseValuePart(label, text.slice(startValue, j));
      if (datum !== undefined) out.push(datum);
    }
    i = j;
  }
  return out;
}

function optionalNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const t = text.trim();
  const m = NUMBER.exec(t);
  return m !== null && m[0].length === t.length ? Number(t) : undefined;
}

function parseValuePart(label: string, part: string): PerfDatum | undefined {
  const fields = part.split(";");
  const head = fields[0] ?? "";
  // Some plugins print a decimal comma; accept it in the value, as Icinga 2 does.
  const m = NUMBER.exec(head.replace(",", "."));
  if (m === null) return undefined;
  const value = Number(m[0]);
  if (!Number.isFinite(value)) return undefined;
  const uom = head.slice(m[0].length);
  if (/[\d;]/.test(uom)) return undefined;
  const min = optionalNumber(fields[3]);
  const max = optionalNumber(fields[4]);
  return {
    label,
    value,
    uom,
    warn: (fields[1] ?? "").trim(),
    crit: (fields[2] ?? "").trim(),
    ...(min === undefined ? {} : { min }),
    ...(max === undefined ? {} : { max }),
  };
}

function quoteLabel(label: string): string {
  return /[\s'="]/.test(label) || label === "" ? `'${label.replaceAll("'", "''")}'` : label;
}

function formatNumber(n: number | undefined): string {
  return n === undefined || !Number.isFinite(n) ? "" : String(n);
}

/**
 * Formats points back into one perfdata string, quoting labels that need it and dropping trailing
 * empty fields. parsePerfdata(formatPerfdata(points)) gives the same points back.
 */
export function formatPerfdata(points: readonly PerfDatum[]): string {
  return points
    .map((p) => {
      const fields = [
        `${quoteLabel(p.label)}=${formatNumber(p.value)}${p.uom}`,
        p.warn,
        p.crit,
        formatNumber(p.min),
        formatNumber(p.max),
      ];
      while (fields.length > 1 && fields[fields.length - 1] === "") fields.pop();
      return fields.join(";");
    })
    .join(" ");
}
