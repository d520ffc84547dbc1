/**
 * Decimal `+`, `-`, `*` and `/` for numbers with a float among them, as cue's apd decimals compute
 * them: 34 significant digits, rounded half to even (`123.45 - 987.65` is `-864.20`, where binary
 * doubles give `-864.1999999999999`; `2.0 / 3 * 6` is 4). Results keep apd's scale (the larger one
 * for `+`/`-`, the sum for `*`, the difference for an exact `/`), so they print as cue prints them.
 */

import type { FloatV, IntV } from "./values.js";

export interface Dec {
  coef: bigint;
  /** Digits after the point (the value is coef × 10^-scale). */
  scale: number;
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

function toDec(x: FloatV | IntV): Dec | undefined {
  if (x.t === "int") return { coef: x.v, scale: 0 };
  if (!Number.isFinite(x.v)) return undefined;
  const text = x.text !== undefined ? x.text.replace(/_/g, "") : String(x.v);
  const m = DECIMAL.exec(text);
  if (m === null) return undefined;
  const [, sign = "", int = "", frac = "", e = "0"] = m;
  if (int === "" && frac === "") return undefined;
  let scale = frac.length - Number(e);
  let digits = int + frac;
  if (scale < 0) {
    if (-scale > 40) return undefined;
    digits += "0".repeat(-scale);
    scale = 0;
  }
  if (scale > 40 || digits.length > 60) return undefined;
  const coef = BigInt(digits === "" ? "0" : digits);
  return { coef: sign === "-" ? -coef : coef, scale };
}

const PRECISION = 34;

function digitCount(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

/** `d` rounded half to even to {@link PRECISION} significant digits. */
function round(d: Dec): Dec {
  const extra = digitCount(d.coef) - PRECISION;
  if (extra <= 0) return d;
  const div = 10n ** BigInt(extra);
  const neg = d.coef < 0n;
  const abs = neg ? -d.coef : d.coef;
  let q = abs / div;
  const r = abs % div;
  const half = div / 2n;
  if (r > half || (r === half && q % 2n === 1n)) q++;
  return { coef: neg ? -q : q, scale: d.scale - extra };
}

/** `x / y` to {@link PRECISION} digits; an exact quotient keeps the ideal scale x.scale - y.scale. */
function quo(x: Dec, y: Dec): Dec {
  const ideal = x.scale - y.scale;
  if (x.coef % y.coef === 0n) {
    const q = x.coef / y.coef;
    return ideal >= 0 ? { coef: q, scale: ideal } : { coef: q * 10n ** BigInt(-ideal), scale: 0 };
  }
  // Enough digits for PRECISION + 1 of quotient, then round.
  const k = Math.max(0, PRECISION + 2 - digitCount(x.coef) + digitCount(y.coef));
  const n = x.coef * 10n ** BigInt(k);
  let q = n / y.coef;
  let scale = ideal + k;
  if (n % y.coef !== 0n) return round({ coef: q, scale });
  // Exact: trailing zeros go, down to the ideal scale.
  while (scale > Math.max(ideal, 0) && q % 10n === 0n) {
    q /= 10n;
    scale--;
  }
  return round({ coef: q, scale });
}

function scaleUp(d: Dec, to: number): bigint {
  return d.coef * 10n ** BigInt(to - d.scale);
}

function toFloat(r: Dec): FloatV {
  let d = round(r);
  if (d.scale < 0) d = { coef: d.coef * 10n ** BigInt(-d.scale), scale: 0 };
  const neg = d.coef < 0n;
  let s = (neg ? -d.coef : d.coef).toString();
  if (d.scale > 0) {
    s = s.padStart(d.scale + 1, "0");
    s = `${s.slice(0, s.length - d.scale)}.${s.slice(s.length - d.scale)}`;
  } else s = `${s}.0`;
  const text = neg ? `-${s}` : s;
  return { t: "float", v: Number(text), text };
}

/** A number as coef × 10^-scale; undefined without a plain decimal form. */
export const decimalFromFloat = toDec;
/** A decimal rounded to 34 digits as a float value printed as cue prints it. */
export const floatFromDecimal = toFloat;
/** `x / y` as apd's Quo computes it (y not zero). */
export const decimalQuo = quo;

/** `a op b` exactly, or undefined when an operand has no plain decimal form (the caller uses doubles). */
export function decimalOp(op: "+" | "-" | "*" | "/", a: FloatV | IntV, b: FloatV | IntV): FloatV | undefined {
  const x = toDec(a);
  const y = toDec(b);
  if (x === undefined || y === undefined) return undefined;
  switch (op) {
    case "+":
    case "-": {
      const scale = Math.max(x.scale, y.scale);
      const l = scaleUp(x, scale);
      const r = scaleUp(y, scale);
      return toFloat({ coef: op === "+" ? l + r : l - r, scale });
    }
    case "*":
      return toFloat({ coef: x.coef * y.coef, scale: x.scale + y.scale });
    case "/":
      return y.coef === 0n ? undefined : toFloat(quo(x, y));
    default: {
      const never: never = op;
      return never;
    }
  }
}
