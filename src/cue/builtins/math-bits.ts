/**
 * `math/bits`, on integers of any size as in CUE: `And`, `Or`, `Xor`, `Clear` (and-not), `Lsh`,
 * `Rsh`, `At` (the bit at an index), `Set` (a copy with one bit set to 0 or 1), `OnesCount` (of the
 * absolute value) and `Len` (the bits needed to write the absolute value).
 */

import { int as intArg } from "../eval/builtins/args.js";
import { fn, registerPackage } from "../eval/builtins/registry.js";
import type { Value } from "../eval/values.js";
import { fail, int } from "./helpers.js";

function nonNegative(args: Value[], i: number, fname: string): bigint {
  const n = intArg(args, i, fname);
  if (n < 0n) fail(fname, `negative bit index or shift count ${n}`);
  return n;
}

const binary = (name: string, f: (a: bigint, b: bigint) => bigint) =>
  fn(2, (a) => int(f(intArg(a, 0, `math/bits.${name}`), intArg(a, 1, `math/bits.${name}`))));

registerPackage("math/bits", {
  And: binary("And", (a, b) => a & b),
  Or: binary("Or", (a, b) => a | b),
  Xor: binary("Xor", (a, b) => a ^ b),
  Clear: binary("Clear", (a, b) => a & ~b),
  Lsh: fn(2, (a) => int(intArg(a, 0, "math/bits.Lsh") << nonNegative(a, 1, "math/bits.Lsh"))),
  Rsh: fn(2, (a) => int(intArg(a, 0, "math/bits.Rsh") >> nonNegative(a, 1, "math/bits.Rsh"))),
  At: fn(2, (a) => {
    const x = intArg(a, 0, "math/bits.At");
    const i = nonNegative(a, 1, "math/bits.At");
    return int((x >> i) & 1n);
  }),
  Set: fn(3, (a) => {
    const x = intArg(a, 0, "math/bits.Set");
    const i = nonNegative(a, 1, "math/bits.Set");
    const bit = intArg(a, 2, "math/bits.Set");
    if (bit !== 0n && bit !== 1n) fail("math/bits.Set", `bit must be 0 or 1, got ${bit}`);
    return int(bit === 1n ? x | (1n << i) : x & ~(1n << i));
  }),
  OnesCount: fn(1, (a) => {
    // The bits of the absolute value, as Go's big.Int words hold it.
    const v = intArg(a, 0, "math/bits.OnesCount");
    let x = v < 0n ? -v : v;
    let n = 0n;
    while (x > 0n) {
      n += x & 1n;
      x >>= 1n;
    }
    return int(n);
  }),
  Len: fn(1, (a) => {
    const x = intArg(a, 0, "math/bits.Len");
    return int(x === 0n ? 0 : (x < 0n ? -x : x).toString(2).length);
  }),
});
