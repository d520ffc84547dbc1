/**
 * RE2 regular expressions (CUE's regex dialect) through `re2js`, with a compile cache.
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

const results = new Map<string, boolean>();

/** Whether `s` contains a match of `pattern` (unanchored, as CUE's `=~`). Results are cached. */
export function matchRegexp(pattern: string, s: string): boolean | BottomV {
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
