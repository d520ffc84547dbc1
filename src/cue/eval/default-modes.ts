/**
 * How the defaults of several disjunctions combine when they are unified (spec: "Default values",
 * U2: (v1, d1) & (v2, d2) => (v1&v2, d1&d2)), step by step as cue's cross product does it.
 *
 * Each result of a step carries a mode: `MAYBE` (no disjunction involved had defaults), `IS` (a
 * default) or `NOT`. A step combines the mode so far (left) with the mode of the term chosen from
 * the next disjunction (right); the stronger wins (`NOT` > `IS` > `MAYBE`). A side whose defaults
 * no result used drops them (`(*1 | 2 | 3) & (2 | 3)` is `2 | 3` without a default), but the left
 * side only drops its defaults when no result's previous term was a default either: that keeps
 * `(int | *1) & (int | *2) & (int | *3)` without a default, as in cue (issue 3958), instead of
 * `3` becoming the default once the first two defaults conflicted.
 */

export const MAYBE = 0;
export const IS = 1;
export const NOT = 2;

/**
 * One step: `left[s]` the mode of result s so far, `last[s]` whether its previous term was a
 * default, `right[s]` the mode of the term the step adds. Updates `left` and `last` in place.
 */
export function combineStep(left: number[], last: boolean[], right: readonly number[]): void {
  let leftDrops = true;
  let rightDrops = true;
  for (let s = 0; s < left.length; s++) {
    if (left[s] === IS || last[s] === true) leftDrops = false;
    if (right[s] === IS) rightDrops = false;
  }
  let nonMaybe = false;
  for (let s = 0; s < left.length; s++) {
    const a = leftDrops ? MAYBE : (left[s] ?? MAYBE);
    const b = rightDrops ? MAYBE : (right[s] ?? MAYBE);
    const m = Math.max(a, b);
    left[s] = m;
    last[s] = right[s] === IS;
    if (m !== MAYBE) nonMaybe = true;
  }
  // Once some result is (or is not) a default, the undecided ones are not.
  if (nonMaybe) for (let s = 0; s < left.length; s++) if (left[s] === MAYBE) left[s] = NOT;
}
