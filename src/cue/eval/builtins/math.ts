/**
 * The `math` package (`Exp`, `Log` and `Pow` in 34-digit decimals as cue computes them, see
 * decimal-math.ts; the other functions in float64 precision, a documented deviation) and the
 * `regexp` and `struct` packages.
 */

import { RE2JS } from "re2js";
import { decimalFromFloat, decimalQuo, floatFromDecimal } from "../decimal.js";
import { decimalExp, decimalLog, decimalPowFrac, Unsupported } from "../decimal-math.js";
import { allows } from "../inspect.js";
import { compileRegexp } from "../regex.js";
import { bottom, FALSE, type FloatV, type IntV, TRUE, type Value } from "../values.js";
import { concrete, int, num, regularArcs, str, structArg } from "./args.js";
import { makeList, makeStruct } from "./make.js";
import { ArgError, fn, registerPackage } from "./registry.js";

const f = (v: number): Value => ({ t: "float", v });
const n = (v: number | bigint): Value => ({ t: "int", v: BigInt(v) });
const b = (v: boolean): Value => (v ? TRUE : FALSE);

function unary(name: string, op: (x: number) => number): ReturnType<typeof fn> {
  return fn(1, (a) => f(op(num(a, 0, `math.${name}`))));
}

function toInt(name: string, op: (x: number) => number): ReturnType<typeof fn> {
  return fn(1, (a) => {
    const v = concrete(a, 0, `math.${name}`);
    if (v.t === "int") return v;
    const r = op(num(a, 0, `math.${name}`));
    if (!Number.isFinite(r)) return bottom("eval", `math.${name}: not finite`);
    return n(BigInt(r));
  });
}

function numberArg(a: Value[], i: number, name: string): FloatV | IntV {
  num(a, i, name); // refuses what is not a concrete number
  return concrete(a, i, name) as FloatV | IntV;
}

function decimalResult(r: FloatV | Unsupported): Value {
  return r instanceof Unsupported ? bottom("unsupported", r.message) : r;
}

/** x^y in decimals: an integer y multiplies exactly (then rounds to 34 digits), others go by Exp/Log. */
function decimalPow(x: FloatV | IntV, y: FloatV | IntV): Value {
  const dx = decimalFromFloat(x);
  const dy = decimalFromFloat(y);
  if (dx === undefined || dy === undefined)
    return bottom("unsupported", "math.Pow of a number without a decimal form is not supported");
  const unit = 10n ** BigInt(dy.scale);
  if (dy.coef % unit === 0n) {
    const e = dy.coef / unit;
    const neg = e < 0n;
    const k = neg ? -e : e;
    const digits = dx.coef.toString().length;
    if (k * BigInt(digits + dx.scale) > 100_000n)
      return bottom("unsupported", "math.Pow: a result this large or small is not supported");
    if (k === 0n) return { t: "float", v: 1 };
    const p = { coef: dx.coef ** k, scale: dx.scale * Number(k) };
    if (!neg) return finite(floatFromDecimal(p));
    if (p.coef === 0n) return bottom("eval", "math.Pow: division by zero");
    return finite(floatFromDecimal(decimalQuo({ coef: 1n, scale: 0 }, p)));
  }
  if (dx.coef === 0n && dy.coef > 0n) return { t: "float", v: 0 };
  if (dx.coef <= 0n)
    return bottom(
      "unsupported",
      "math.Pow of a base not above zero with a fractional exponent is not supported",
    );
  return decimalResult(decimalPowFrac(x, y));
}

function finite(r: FloatV): Value {
  return Number.isFinite(r.v) && (r.v !== 0 || /^-?0\.?0*$/.test(r.text ?? ""))
    ? r
    : bottom("unsupported", "math.Pow: a result this large or small is not supported");
}

registerPackage("math", {
  Pi: {
    kind: "value",
    value: {
      t: "float",
      v: Math.PI,
      text: "3.14159265358979323846264338327950288419716939937510582097494459",
    },
  },
  E: {
    kind: "value",
    value: {
      t: "float",
      v: Math.E,
      text: "2.71828182845904523536028747135266249775724709369995957496696763",
    },
  },
  MaxInt64: { kind: "value", value: n(9223372036854775807n) },
  MinInt64: { kind: "value", value: n(-9223372036854775808n) },
  MaxInt32: { kind: "value", value: n(2147483647n) },
  MinInt32: { kind: "value", value: n(-2147483648n) },
  Floor: toInt("Floor", Math.floor),
  Ceil: toInt("Ceil", Math.ceil),
  Round: toInt("Round", (x) => (x < 0 ? -Math.round(-x) : Math.round(x))),
  Trunc: toInt("Trunc", Math.trunc),
  Abs: fn(1, (a) => {
    const v = concrete(a, 0, "math.Abs");
    if (v.t === "int") return n(v.v < 0n ? -v.v : v.v);
    return f(Math.abs(num(a, 0, "math.Abs")));
  }),
  Sqrt: unary("Sqrt", Math.sqrt),
  Exp: fn(1, (a) => decimalResult(decimalExp(numberArg(a, 0, "math.Exp")))),
  Log: fn(1, (a) => {
    const x = numberArg(a, 0, "math.Log");
    if ((x.t === "int" ? x.v <= 0n : x.v <= 0) || Number.isNaN(x.v))
      return bottom("unsupported", "math.Log of a number not above zero is not supported");
    return decimalResult(decimalLog(x));
  }),
  Log10: unary("Log10", Math.log10),
  Log2: unary("Log2", Math.log2),
  Sin: unary("Sin", Math.sin),
  Cos: unary("Cos", Math.cos),
  Tan: unary("Tan", Math.tan),
  Pow: fn(2, (a) => {
    const x = concrete(a, 0, "math.Pow");
    const y = concrete(a, 1, "math.Pow");
    if (x.t === "int" && y.t === "int" && y.v >= 0n && y.v < 10_000n) return n(x.v ** y.v);
    return decimalPow(numberArg(a, 0, "math.Pow"), numberArg(a, 1, "math.Pow"));
  }),
  MultipleOf: fn(
    2,
    (a) => {
      const x = concrete(a, 0, "math.MultipleOf");
      const y = concrete(a, 1, "math.MultipleOf");
      if (x.t === "int" && y.t === "int") return b(y.v !== 0n && x.v % y.v === 0n);
      const r = num(a, 0, "math.MultipleOf") / num(a, 1, "math.MultipleOf");
      return b(Number.isInteger(r));
    },
    { validator: true },
  ),
});

function re(a: Value[], name: string): RE2JS {
  const r = compileRegexp(str(a, 0, name));
  if (!(r instanceof RE2JS)) throw new ArgError(r);
  return r;
}

registerPackage("regexp", {
  Match: fn(2, (a) =>
    b(
      re(a, "regexp.Match")
        .matcher(str(a, 1, "regexp.Match"))
        .find(),
    ),
  ),
  Valid: fn(1, (a) => b(compileRegexp(str(a, 0, "regexp.Valid")) instanceof RE2JS), { validator: true }),
  QuoteMeta: fn(1, (a) => ({ t: "string", v: RE2JS.quote(str(a, 0, "regexp.QuoteMeta")) })),
  Find: fn(2, (a) => {
    const m = re(a, "regexp.Find").matcher(str(a, 1, "regexp.Find"));
    if (!m.find()) return bottom("eval", "no match");
    return { t: "string", v: m.group() ?? "" };
  }),
  FindAll: fn(3, (a) => {
    const m = re(a, "regexp.FindAll").matcher(str(a, 1, "regexp.FindAll"));
    const lim = Number(int(a, 2, "regexp.FindAll"));
    const out: Value[] = [];
    while ((lim < 0 || out.length < lim) && m.find()) out.push({ t: "string", v: m.group() ?? "" });
    if (out.length === 0) return bottom("eval", "no match");
    return makeList(out);
  }),
  FindSubmatch: fn(2, (a) => {
    const m = re(a, "regexp.FindSubmatch").matcher(str(a, 1, "regexp.FindSubmatch"));
    if (!m.find()) return bottom("eval", "no match");
    const out: Value[] = [];
    for (let i = 0; i <= m.groupCount(); i++) out.push({ t: "string", v: m.group(i) ?? "" });
    return makeList(out);
  }),
  FindNamedSubmatch: fn(2, (a) => {
    const r = re(a, "regexp.FindNamedSubmatch");
    const m = r.matcher(str(a, 1, "regexp.FindNamedSubmatch"));
    if (!m.find()) return bottom("eval", "no match");
    const names = r.namedGroups() as Record<string, number>;
    return makeStruct(Object.entries(names).map(([k, i]) => [k, { t: "string", v: m.group(i) ?? "" }]));
  }),
  ReplaceAll: fn(3, (a) => {
    const r = re(a, "regexp.ReplaceAll");
    return {
      t: "string",
      v: r.matcher(str(a, 1, "regexp.ReplaceAll")).replaceAll(str(a, 2, "regexp.ReplaceAll")),
    };
  }),
  ReplaceAllLiteral: fn(3, (a) => {
    const r = re(a, "regexp.ReplaceAllLiteral");
    return {
      t: "string",
      v: r
        .matcher(str(a, 1, "regexp.ReplaceAllLiteral"))
        .replaceAll(RE2JS.quoteReplacement(str(a, 2, "regexp.ReplaceAllLiteral"))),
    };
  }),
});

registerPackage("struct", {
  // MinFields fails only incompletely on a struct that may still gain fields (cue's semantics).
  MinFields: fn(
    2,
    (a) => {
      const v = structArg(a, 0, "struct.MinFields");
      const n = Number(int(a, 1, "struct.MinFields"));
      const have = regularArcs(v).length;
      if (have >= n) return TRUE;
      const code = allows(v, { kind: "anyString" }) ? "incomplete" : "eval";
      return bottom(
        code,
        `invalid value ${v.shortText()} (does not satisfy struct.MinFields(${n})): len(fields) < MinFields(${n}) (${have} < ${n})`,
      );
    },
    { validator: true },
  ),
  MaxFields: fn(
    2,
    (a) => {
      const v = structArg(a, 0, "struct.MaxFields");
      const n = Number(int(a, 1, "struct.MaxFields"));
      const have = regularArcs(v).length;
      if (have <= n) return TRUE;
      return bottom(
        "eval",
        `invalid value ${v.shortText()} (does not satisfy struct.MaxFields(${n})): len(fields) > MaxFields(${n}) (${have} > ${n})`,
      );
    },
    { validator: true },
  ),
});
