/**
 * `encoding/csv`: `Encode` writes a list of lists as CSV the way Go's `encoding/csv` writer does
 * (fields quoted only when they hold a comma, a quote, a line break or start with a space; lines
 * end in `\n`), `Decode` reads CSV text into a list of lists of strings as Go's reader does with
 * its defaults (every record as wide as the first, no bare quotes in unquoted fields, `\r\n` read
 * as `\n`, empty lines skipped).
 */

import { concrete } from "../eval/builtins/args.js";
import { makeList } from "../eval/builtins/make.js";
import { fn, registerPackage } from "../eval/builtins/registry.js";
import type { Tree } from "../eval/export.js";
import { formatFloat, type Value } from "../eval/values.js";
import { fail, str, treeOf } from "./helpers.js";

function fieldText(t: Tree): string {
  switch (t.k) {
    case "string":
      return t.v;
    case "int":
      return t.v.toString();
    case "float":
      return formatFloat(t.v);
    case "bool":
      return t.v ? "true" : "false";
    case "null":
    case "bytes":
    case "list":
    case "struct":
      return fail("encoding/csv.Encode", `unsupported type ${t.k}`);
    default: {
      const never: never = t;
      return never;
    }
  }
}

function needsQuotes(f: string): boolean {
  if (f === "") return false;
  if (f === "\\.") return true;
  if (/[",\r\n]/.test(f)) return true;
  return /^\s/u.test(f);
}

/** CSV text of rows of fields, as Go's csv.Writer writes it. */
export function encodeCsv(rows: readonly (readonly string[])[]): string {
  let out = "";
  for (const row of rows) {
    out += row.map((f) => (needsQuotes(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(",");
    out += "\n";
  }
  return out;
}

/** Rows of CSV text, as Go's csv.Reader reads them with its defaults; a string is the error. */
export function decodeCsv(text: string): string[][] | string {
  const s = text.replace(/\r\n/g, "\n");
  const rows: string[][] = [];
  let i = 0;
  let line = 1;
  while (i < s.length) {
    if (s[i] === "\n") {
      i++;
      line++;
      continue;
    }
    const start = line;
    const row: string[] = [];
    for (;;) {
      let field = "";
      if (s[i] === '"') {
        i++;
        for (;;) {
          if (i >= s.length)
            return `record on line ${start}; parse error on line ${line}: extraneous or missing " in quoted-field`;
          const c = s[i] as string;
          if (c === '"') {
            if (s[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === "\n") line++;
          field += c;
          i++;
        }
        if (i < s.length && s[i] !== "," && s[i] !== "\n") {
          return `record on line ${start}; parse error on line ${line}: extraneous or missing " in quoted-field`;
        }
      } else {
        while (i < s.length && s[i] !== "," && s[i] !== "\n") {
          if (s[i] === '"')
            return `record on line ${start}; parse error on line ${line}: bare " in non-quoted-field`;
          field += s[i];
          i++;
        }
      }
      row.push(field);
      if (i < s.length && s[i] === ",") {
        i++;
        continue;
      }
      break;
    }
    if (rows.length > 0 && row.length !== (rows[0] as string[]).length) {
      return `record on line ${start}: wrong number of fields`;
    }
    rows.push(row);
  }
  return rows;
}

registerPackage("encoding/csv", {
  Encode: fn(1, (a) => {
    const t = treeOf(concrete(a, 0, "encoding/csv.Encode"), "encoding/csv.Encode");
    if (t.k !== "list") return fail("encoding/csv.Encode", "argument must be a list of lists");
    const rows = t.items.map((r) => {
      if (r.k !== "list") return fail("encoding/csv.Encode", "argument must be a list of lists");
      return r.items.map(fieldText);
    });
    return str(encodeCsv(rows));
  }),
  Decode: fn(1, (a) => {
    const v = concrete(a, 0, "encoding/csv.Decode");
    let text: string;
    if (v.t === "string") text = v.v;
    else if (v.t === "bytes") text = Buffer.from(v.v).toString("utf8");
    else return fail("encoding/csv.Decode", "argument must be bytes or string");
    const rows = decodeCsv(text);
    if (typeof rows === "string") return fail("encoding/csv.Decode", rows);
    return makeList(rows.map((r): Value => makeList(r.map((f) => str(f)))));
  }),
});
