/**
 * Default resolution: where an operation needs a single value, a disjunction with defaults is
 * replaced by its default (spec: "Default values").
 */

import type { Value } from "./values.js";

/** The default of a disjunction (or the disjunction of several defaults); other values unchanged. */
export function resolveDefaultValue(v: Value): Value {
  if (v.t !== "disj" || !v.hasDefault) return v;
  // Usually exactly one default: return it without building a new disjunction.
  let one: Value | undefined;
  let n = 0;
  for (let i = 0; i < v.values.length; i++) {
    if (v.defaults[i]) {
      n++;
      one = v.values[i];
    }
  }
  if (n === 1 && one !== undefined) return one;
  // Defaults that conflicted (`(int | *1) & (int | *2)`): there is no default to take.
  if (n === 0) return v;
  const vals: Value[] = [];
  for (let i = 0; i < v.values.length; i++) {
    const x = v.values[i];
    if (x !== undefined && v.defaults[i]) vals.push(x);
  }
  if (vals.length === 1) return vals[0] as Value;
  return { t: "disj", values: vals, defaults: vals.map(() => false), hasDefault: false };
}
