/**
 * Predeclared identifiers of the universe block: basic types, the sized number types, and the
 * functions `len`, `or`, `div`, `mod`, `quo`, `rem` (`close` and `and` are handled by the evaluator
 * because they act on conjuncts).
 */

import { resolveDefaultValue } from "../defaults.js";
import { evaluate, vertexValue } from "../evaluate.js";
import { BOOL, BYTES, FLOAT, INT, NULL, NUMBER, STRING } from "../kinds.js";
import { makeDisj } from "../meet.js";
import { type BasicV, bottom, type Value } from "../values.js";
import { COLLECTING } from "../vertex.js";
import { concrete, int, listArcs } from "./args.js";
import { ArgError, fn, registerPredeclared } from "./registry.js";

function range(k: number, lo: Value, hi: Value): BasicV {
  return {
    t: "basic",
    k,
    bounds: [
      { op: ">=", v: lo },
      { op: "<=", v: hi },
    ],
    validators: [],
  };
}
const i = (n: bigint): Value => ({ t: "int", v: n });
const f = (text: string): Value => ({ t: "float", v: Number(text), text });

const types: Record<string, Value> = {
  bool: { t: "basic", k: BOOL, bounds: [], validators: [] },
  int: { t: "basic", k: INT, bounds: [], validators: [] },
  float: { t: "basic", k: FLOAT, bounds: [], validators: [] },
  number: { t: "basic", k: NUMBER, bounds: [], validators: [] },
  string: { t: "basic", k: STRING, bounds: [], validators: [] },
  bytes: { t: "basic", k: BYTES, bounds: [], validators: [] },
  null: { t: "null" },
  uint: { t: "basic", k: INT, bounds: [{ op: ">=", v: i(0n) }], validators: [] },
  uint8: range(INT, i(0n), i(255n)),
  int8: range(INT, i(-128n), i(127n)),
  uint16: range(INT, i(0n), i(65535n)),
  int16: range(INT, i(-32768n), i(32767n)),
  rune: range(INT, i(0n), i(0x10ffffn)),
  uint32: range(INT, i(0n), i(4294967295n)),
  int32: range(INT, i(-2147483648n), i(2147483647n)),
  uint64: range(INT, i(0n), i(18446744073709551615n)),
  int64: range(INT, i(-9223372036854775808n), i(9223372036854775807n)),
  uint128: range(INT, i(0n), i(340282366920938463463374607431768211455n)),
  int128: range(
    INT,
    i(-170141183460469231731687303715884105728n),
    i(170141183460469231731687303715884105727n),
  ),
  float32: range(
    NUMBER,
    f("-3.40282346638528859811704183484516925440e+38"),
    f("3.40282346638528859811704183484516925440e+38"),
  ),
  float64: range(
    NUMBER,
    f("-1.797693134862315708145274237317043567981e+308"),
    f("1.797693134862315708145274237317043567981e+308"),
  ),
};
// Test-suite marker that disables structure sharing in cue; sharing is not observable here.
types.__no_sharing = { t: "top" };
for (const [name, value] of Object.entries(types)) registerPredeclared(name, { kind: "value", value });
void NULL;

registerPredeclared(
  "len",
  fn(1, (args) => {
    const raw = resolveDefaultValue(args[0] as Value);
    if (raw.t === "vertex") {
      const v = raw.v;
      // A struct or list still being collected (`len(self)` in its own embedding) has no length
      // yet: a cycle, which the embedding retries once the value is known (evaluate.ts).
      if (v.status === COLLECTING) return bottom("cycle", "cycle in len of a value being evaluated");
      evaluate(v);
      if (v.isList) return i(BigInt(v.listLen));
      let n = 0n;
      if (v.arcs !== undefined) {
        for (const [k, a] of v.arcs) if (a.fieldType === 0 && !k.startsWith("_") && !k.startsWith("#")) n++;
      }
      return i(n);
    }
    const c = concrete(args, 0, "len");
    if (c.t === "string") return i(BigInt(Buffer.byteLength(c.v, "utf8")));
    if (c.t === "bytes") return i(BigInt(c.v.length));
    throw new ArgError(bottom("eval", `invalid argument type ${c.t} to len`));
  }),
);

registerPredeclared(
  "or",
  fn(1, (args) => {
    const arcs = listArcs(args, 0, "or");
    if (arcs.length === 0) return bottom("eval", "empty list in call to or");
    // An element with definitions beside its scalar (`{2, #x: 1}`) stays a struct: its
    // definitions tell it apart from another element with the same scalar.
    const values = arcs.map((a): Value => {
      const x = vertexValue(a);
      return x.t !== "vertex" && x.t !== "bottom" && a.arcs !== undefined && a.arcs.size > 0
        ? { t: "vertex", v: a }
        : x;
    });
    return makeDisj(
      values,
      values.map(() => false),
      false,
      undefined,
      [],
    );
  }),
);

function intOp(name: string, op: (a: bigint, b: bigint) => bigint): void {
  registerPredeclared(
    name,
    fn(2, (args) => {
      const a = int(args, 0, name);
      const b = int(args, 1, name);
      if (b === 0n) return bottom("eval", `division by zero`);
      return i(op(a, b));
    }),
  );
}
// Euclidean division and modulus (div/mod), truncated (quo/rem), as in Go's big.Int.
intOp("div", (a, b) => {
  const q = a / b;
  const r = a % b;
  if (r < 0n) return b > 0n ? q - 1n : q + 1n;
  return q;
});
intOp("mod", (a, b) => {
  const r = a % b;
  if (r < 0n) return b > 0n ? r + b : r - b;
  return r;
});
intOp("quo", (a, b) => a / b);
intOp("rem", (a, b) => a % b);

registerPredeclared(
  "error",
  fn(1, (args) => {
    const m = resolveDefaultValue(args[0] as Value);
    const b = bottom("user", m.t === "string" ? m.v : "error");
    b.err.custom = true;
    return b;
  }),
);
