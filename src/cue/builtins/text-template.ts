/**
 * `text/template`: Execute for templates made of text and field references (`{{.}}`, `{{.a.b}}`,
 * with `{{-`/`-}}` trimming), printing values the way Go's fmt does for decoded JSON. Other actions
 * (`range`, `if`, pipelines, functions) yield an `unsupported` error. Also HTMLEscape and JSEscape.
 */

import { concrete, str as strArg } from "../eval/builtins/args.js";
import { ArgError, fn, registerPackage } from "../eval/builtins/registry.js";
import type { Tree } from "../eval/export.js";
import { bottom, formatFloat } from "../eval/values.js";
import { str, treeOf } from "./helpers.js";

const fname = "text/template.Execute";

function goFormat(t: Tree | undefined): string {
  if (t === undefined) return "<no value>";
  switch (t.k) {
    case "null":
      return "<nil>";
    case "bool":
      return String(t.v);
    case "int":
      return t.v.toString();
    case "float": {
      const s = formatFloat(t.v);
      return s.endsWith(".0") ? s.slice(0, -2) : s.replace("E+", "e+").replace("E-", "e-");
    }
    case "string":
      return t.v;
    case "bytes":
      return `[${[...t.v].join(" ")}]`;
    case "list":
      return `[${t.items.map(goFormat).join(" ")}]`;
    case "struct":
      return `map[${[...t.fields]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => `${k}:${goFormat(v)}`)
        .join(" ")}]`;
    default: {
      const never: never = t;
      return String(never);
    }
  }
}

/** Runs a template of text and `{{.path}}` actions against data. */
export function execute(tmpl: string, data: Tree): string {
  let out = "";
  let i = 0;
  while (i < tmpl.length) {
    const open = tmpl.indexOf("{{", i);
    if (open < 0) {
      out += tmpl.slice(i);
      break;
    }
    let text = tmpl.slice(i, open);
    const close = tmpl.indexOf("}}", open + 2);
    if (close < 0) throw new ArgError(bottom("eval", `${fname}: template: unclosed action`));
    let action = tmpl.slice(open + 2, close);
    let next = close + 2;
    if (action.startsWith("- ")) {
      text = text.trimEnd();
      action = action.slice(2);
    }
    if (action.endsWith(" -")) {
      action = action.slice(0, -2);
      while (next < tmpl.length && /\s/.test(tmpl[next] ?? "")) next++;
    }
    out += text;
    const a = action.trim();
    if (!/^\.(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)?$/.test(a)) {
      if (a.startsWith("/*") && a.endsWith("*/")) {
        i = next;
        continue;
      }
      throw new ArgError(bottom("unsupported", `${fname}: template action {{${action}}} is not supported`));
    }
    let cur: Tree | undefined = data;
    for (const key of a === "." ? [] : a.slice(1).split(".")) {
      cur = cur?.k === "struct" ? cur.fields.find(([k]) => k === key)?.[1] : undefined;
    }
    out += goFormat(cur);
    i = next;
  }
  return out;
}

function htmlEscape(s: string): string {
  return s.replace(/[&'<>"\u0000]/g, (c) =>
    c === "&"
      ? "&amp;"
      : c === "'"
        ? "&#39;"
        : c === "<"
          ? "&lt;"
          : c === ">"
            ? "&gt;"
            : c === '"'
              ? "&#34;"
              : "\uFFFD",
  );
}

function jsEscape(s: string): string {
  let out = "";
  for (const c of s) {
    const code = c.codePointAt(0) ?? 0;
    if (c === "\\") out += "\\\\";
    else if (c === "'") out += "\\'";
    else if (c === '"') out += '\\"';
    else if (c === "<") out += "\\u003C";
    else if (c === ">") out += "\\u003E";
    else if (c === "&") out += "\\u0026";
    else if (c === "=") out += "\\u003D";
    else if (code < 0x20) out += `\\u${code.toString(16).toUpperCase().padStart(4, "0")}`;
    else out += c;
  }
  return out;
}

registerPackage("text/template", {
  Execute: fn(2, (a) => str(execute(strArg(a, 0, fname), treeOf(concrete(a, 1, fname), fname, true)))),
  HTMLEscape: fn(1, (a) => str(htmlEscape(strArg(a, 0, "text/template.HTMLEscape")))),
  JSEscape: fn(1, (a) => str(jsEscape(strArg(a, 0, "text/template.JSEscape")))),
});
