/**
 * The `matchN` and `matchIf` validators (used by JSON Schema style definitions): they unify the
 * validated value with each schema and count the ones that do not fail.
 */

import { firstError } from "../evaluate.js";
import { meet } from "../meet.js";
import { bottom, FALSE, TRUE, type Value } from "../values.js";
import { NO_CLOSE, Vertex } from "../vertex.js";
import { concrete, listArcs } from "./args.js";
import { fn, registerPredeclared } from "./registry.js";

const noPos = { file: "", offset: -1, line: 0, column: 0 };

/** Whether `v & schema` evaluates without a (non-incomplete) error. */
function matches(v: Value, schema: Value): boolean {
  const w = new Vertex(undefined, "");
  w.isLet = true;
  const env = {
    up: undefined,
    vertex: w,
    scope: undefined,
    lit: undefined,
    binds: undefined,
    lets: undefined,
    imports: undefined,
  };
  w.conjuncts = [
    { expr: undefined, env, ctx: NO_CLOSE, value: v, pos: noPos, embed: false },
    { expr: undefined, env, ctx: NO_CLOSE, value: schema, pos: noPos, embed: false },
  ];
  return firstError(w) === undefined;
}

function guarded(f: (a: Value[]) => Value): (a: Value[]) => Value {
  return f;
}

registerPredeclared(
  "matchN",
  fn(
    3,
    guarded((a) => {
      const v = a[0] as Value;
      const n = a[1] as Value;
      const schemas = listArcs(a, 2, "matchN").map((x) => ({ t: "vertex", v: x }) as Value);
      let count = 0n;
      for (const s of schemas) if (matches(v, s)) count++;
      const r = meet(n, { t: "int", v: count });
      return r.t === "bottom" ? FALSE : TRUE;
    }),
    { validator: true },
  ),
);

registerPredeclared(
  "matchIf",
  fn(
    4,
    guarded((a) => {
      const v = a[0] as Value;
      const [cond, then, els] = [a[1], a[2], a[3]] as [Value, Value, Value];
      return matches(v, matches(v, cond) ? then : els) ? TRUE : FALSE;
    }),
    { validator: true },
  ),
);

void concrete;
void bottom;
