/**
 * RE2 regular expressions (CUE's regex dialect) through `re2js`, with a compile cache. Patterns
 * written in the common subset whose RE2 and JavaScript meanings agree (literals, classes, `.`,
 * anchors, groups, alternation, bounded repetition) are matched by the JavaScript engine instead,
 * translated where the two differ (`.` and `\s` are ASCII-line and ASCII-space in RE2): that is
 * many times faster, and validation regexps run once per field of a large document.
 */

import { RE2JS } from "re2js";
import { type BottomV, bottom } from "./values.js";

const cache = new Map<string, RE2JS | BottomV>();

/** Compiles (cached) an RE2 pattern; a bottom value describes a syntax error. */
export function compileRegexp(pattern: string): RE2JS | BottomV {
  let re = cache.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch (e) {
      re = bottom("eval", `invalid regexp: ${(e as Error).message}`);
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}

// null: the pattern is outside the common subset (re2js decides).
const native = new Map<string, RegExp | null>();

/** The JavaScript equivalent of an RE2 pattern, when it is in the common subset. */
export function nativeRegexp(pattern: string): RegExp | null {
  let re = native.get(pattern);
  if (re === undefined) {
    const src = translate(pattern);
    re = null;
    if (src !== undefined && compileRegexp(pattern) instanceof RE2JS) {
      try {
        re = new RegExp(src, "u");
      } catch {
        re = null;
      }
    }
    if (native.size > 10_000) native.clear();
    native.set(pattern, re);
  }
  return re;
}

const results = new Map<string, boolean>();

/** Whether `s` contains a match of `pattern` (unanchored, as CUE's `=~`). */
export function matchRegexp(pattern: string, s: string): boolean | BottomV {
  const js = nativeRegexp(pattern);
  if (js !== null) return js.test(s);
  const key = `${pattern}\u0000${s}`;
  const hit = results.get(key);
  if (hit !== undefined) return hit;
  const re = compileRegexp(pattern);
  if (!(re instanceof RE2JS)) return re;
  const r = re.matcher(s).find();
  if (results.size > 50_000) results.clear();
  results.set(key, r);
  return r;
}

// RE2's `\s` is [\t\n\f\r ]; `.` is anything but a newline.
const SPACE = "\\t\\n\\f\\r ";
// Escapes of punctuation that mean the character itself in both dialects.
const PUNCT = new Set([..."\\.-[]{}()*+?|^$/"]);

/**
 * The pattern rewritten for JavaScript's `u` mode, or undefined when it uses anything outside the
 * common subset (flags, named groups, Unicode classes, `\b`, `\A`, `\z`, octal and hex escapes,
 * POSIX classes, repetition counts above RE2's 1000...).
 */
export function translate(p: string): string | undefined {
  let out = "";
  let i = 0;
  const n = p.length;
  while (i < n) {
    const c = p[i] as string;
    if (c === "\\") {
      const e = p[i + 1];
      if (e === undefined) return undefined;
      if (e === "d" || e === "D" || e === "w" || e === "W") out += `\\${e}`;
      else if (e === "s") out += `[${SPACE}]`;
      else if (e === "S") out += `[^${SPACE}]`;
      else if (e === "t" || e === "n" || e === "r" || e === "f") out += `\\${e}`;
      else if (PUNCT.has(e)) out += `\\${e}`;
      else return undefined;
      i += 2;
      continue;
    }
    if (c === "[") {
      const r = translateClass(p, i);
      if (r === undefined) return undefined;
      out += r.text;
      i = r.next;
      continue;
    }
    if (c === "(") {
      if (p[i + 1] === "?") {
        if (p[i + 2] !== ":") return undefined;
        out += "(?:";
        i += 3;
        continue;
      }
      out += "(";
      i++;
      continue;
    }
    if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
      if (m === null) return undefined;
      if (Number(m[1]) > 1000 || (m[3] !== undefined && m[3] !== "" && Number(m[3]) > 1000)) return undefined;
      out += m[0];
      i += m[0].length;
      continue;
    }
    if (c === ".") {
      out += "[^\\n]";
      i++;
      continue;
    }
    if (c === "}" || c === "]") return undefined;
    out += c;
    i++;
  }
  return out;
}

function translateClass(p: string, start: number): { text: string; next: number } | undefined {
  let i = start + 1;
  let out = "[";
  if (p[i] === "^") {
    out += "^";
    i++;
  }
  // A `]` right after `[` or `[^` is a literal in RE2.
  if (p[i] === "]") {
    out += "\\]";
    i++;
  }
  for (; i < p.length; i++) {
    const c = p[i] as string;
    if (c === "]") return { text: `${out}]`, next: i + 1 };
    if (c === "[") {
      if (p[i + 1] === ":") return undefined; // POSIX classes ([:alpha:])
      out += "\\[";
      continue;
    }
    if (c === "\\") {
      const e = p[i + 1];
      if (e === undefined) return undefined;
      if (e === "d" || e === "w" || e === "t" || e === "n" || e === "r" || e === "f") out += `\\${e}`;
      else if (e === "s") out += SPACE;
      else if (PUNCT.has(e)) out += `\\${e}`;
      else return undefined;
      i++;
      continue;
    }
    out += c;
  }
  return undefined;
}
