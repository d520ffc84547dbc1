/**
 * `math.Exp`, `math.Log` and `math.Pow` in 34-digit decimals, as cue computes them with apd: the
 * exact result rounded half to even to 34 significant digits (`math.Log(10)` is
 * 2.302585092994045684017991454684364). The series run in fixed point with 80 digits; a result
 * whose 34th digit those cannot decide (a tie within the working error), or one outside what a
 * double can hold, is refused with an `unsupported` message rather than guessed.
 */

import { type Dec, decimalFromFloat, floatFromDecimal } from "./decimal.js";
import type { FloatV, IntV } from "./values.js";

const PRECISION = 34;
/** Working digits of the fixed-point series. */
const W = 80;
const ONE = 10n ** BigInt(W);

/** A fixed-point number: value × 10^W. */
type Fixed = bigint;

function fromDec(d: Dec): Fixed {
  const shift = W - d.scale;
  return shift >= 0 ? d.coef * 10n ** BigInt(shift) : d.coef / 10n ** BigInt(-shift);
}

function mul(a: Fixed, b: Fixed): Fixed {
  return (a * b) / ONE;
}

function div(a: Fixed, b: Fixed): Fixed {
  return (a * ONE) / b;
}

/** atanh(z) = z + z³/3 + z⁵/5 + …, for |z| ≤ 1/3. */
function atanh(z: Fixed): Fixed {
  const z2 = mul(z, z);
  let term = z;
  let sum = z;
  for (let k = 3n; term !== 0n; k += 2n) {
    term = mul(term, z2);
    sum += term / k;
  }
  return sum;
}

let ln2Cache: Fixed | undefined;
let ln10Cache: Fixed | undefined;

function ln2(): Fixed {
  ln2Cache ??= 2n * atanh(div(ONE, 3n * ONE));
  return ln2Cache;
}

/** ln 10 = 3 ln 2 + ln 1.25, ln 1.25 = 2 atanh(1/9). */
function ln10(): Fixed {
  ln10Cache ??= 3n * ln2() + 2n * atanh(div(ONE, 9n * ONE));
  return ln10Cache;
}

/** ln(x) for x > 0 given as coef × 10^-scale. */
function lnDec(d: Dec): Fixed {
  // x = m × 10^e with m in [1, 10), then m = r × 2^k with r in [0.75, 1.5).
  const digits = d.coef.toString().length;
  const e = digits - 1 - d.scale;
  let m = fromDec({ coef: d.coef, scale: digits - 1 });
  let k = 0n;
  const hi = (3n * ONE) / 2n;
  const lo = (3n * ONE) / 4n;
  while (m >= hi) {
    m /= 2n;
    k++;
  }
  while (m < lo) {
    m *= 2n;
    k--;
  }
  const z = div(m - ONE, m + ONE);
  return 2n * atanh(z) + k * ln2() + BigInt(e) * ln10();
}

/** exp(x) for a fixed-point x with |x| below ~700. */
function expFixed(x: Fixed): Fixed {
  // x = k ln2 + r, |r| ≤ ln2 / 2; exp(r) by its series on r / 2^8, squared 8 times.
  const l2 = ln2();
  let k = x / l2;
  let r = x - k * l2;
  if (r > l2 / 2n) {
    r -= l2;
    k++;
  } else if (r < -l2 / 2n) {
    r += l2;
    k--;
  }
  const small = r / 256n;
  let term = ONE;
  let sum = ONE;
  for (let n = 1n; term !== 0n; n++) {
    term = mul(term, small) / n;
    sum += term;
  }
  for (let i = 0; i < 8; i++) sum = mul(sum, sum);
  return k >= 0n ? sum * 2n ** k : sum / 2n ** -k;
}

/**
 * The fixed-point value rounded half to even to 34 significant digits; "range" when it has too few
 * digits for that (a result too small for the working precision), "tie" when the working error
 * could move it across a rounding boundary.
 */
function round34(x: Fixed): Dec | "range" | "tie" {
  const neg = x < 0n;
  const abs = neg ? -x : x;
  const digits = abs === 0n ? 0 : abs.toString().length;
  const drop = digits - PRECISION;
  // Fewer than 30 digits beyond the 34 kept: the series' error could reach them.
  if (drop < 30) return "range";
  const div = 10n ** BigInt(drop);
  let q = abs / div;
  const rem = abs % div;
  const half = div / 2n;
  // The series carry an error far below 10^-20 of the last kept digit; a remainder that near
  // the half-way point (or an exact digit) is not decided by them.
  const margin = 10n ** BigInt(drop - 20);
  const near = (a: bigint, b: bigint): boolean => (a > b ? a - b : b - a) < margin;
  if (near(rem, half) || rem < margin || div - rem < margin) return "tie";
  if (rem > half) q++;
  return { coef: neg ? -q : q, scale: W - drop };
}

/** What a refusal says; the builtin reports it as an `unsupported` error. */
export class Unsupported {
  constructor(readonly message: string) {}
}

type Result = FloatV | Unsupported;

function finish(x: Fixed, what: string): Result {
  const d = round34(x);
  if (d === "tie")
    return new Unsupported(`${what}: a result this close to a rounding boundary is not supported`);
  const f = d === "range" ? undefined : floatFromDecimal(d);
  if (f === undefined || !Number.isFinite(f.v) || f.v === 0)
    return new Unsupported(`${what}: a result this large or small is not supported`);
  return f;
}

/** math.Exp(x). */
export function decimalExp(x: FloatV | IntV): Result {
  const d = decimalFromFloat(x);
  if (d === undefined)
    return new Unsupported("math.Exp: an argument without a decimal form is not supported");
  if (d.coef === 0n) return { t: "float", v: 1 };
  if (!(Math.abs(x.t === "int" ? Number(x.v) : x.v) < 700))
    return new Unsupported("math.Exp: a result this large or small is not supported");
  return finish(expFixed(fromDec(d)), "math.Exp");
}

/** math.Log(x) for x > 0 (the caller refuses the rest). */
export function decimalLog(x: FloatV | IntV): Result {
  const d = decimalFromFloat(x);
  if (d === undefined)
    return new Unsupported("math.Log: an argument without a decimal form is not supported");
  if (d.coef === 10n ** BigInt(d.scale)) return { t: "float", v: 0 };
  return finish(lnDec(d), "math.Log");
}

/** math.Pow(x, y) for x > 0 and y not an integer. */
export function decimalPowFrac(x: FloatV | IntV, y: FloatV | IntV): Result {
  const dx = decimalFromFloat(x);
  const dy = decimalFromFloat(y);
  if (dx === undefined || dy === undefined)
    return new Unsupported("math.Pow: an argument without a decimal form is not supported");
  const t = mul(fromDec(dy), lnDec(dx));
  if (t > 700n * ONE || t < -700n * ONE)
    return new Unsupported("math.Pow: a result this large or small is not supported");
  return finish(expFixed(t), "math.Pow");
}
