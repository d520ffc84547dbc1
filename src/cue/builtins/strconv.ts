/**
 * The `strconv` package (Go semantics): Atoi, Itoa, ParseInt, ParseUint, ParseFloat, ParseBool,
 * FormatInt, FormatUint, FormatFloat, FormatBool, Quote, Unquote.
 */

import { bool, int as intArg, num, str as strArg } from "../eval/builtins/args.js";
import { fn, registerPackage } from "../eval/builtins/registry.js";
import { FALSE, TRUE, type Value } from "../eval/values.js";
import { fail, int, str } from "./helpers.js";

function parseInteger(fname: string, s: string, base: number, unsigned: boolean): bigint {
  let t = s.replace(/_/g, (m) => (base === 0 ? "" : m));
  let neg = false;
  if (!unsigned && (t.startsWith("-") || t.startsWith("+"))) {
    neg = t.startsWith("-");
    t = t.slice(1);
  }
  let b = base;
  if (b === 0) {
    const p = t.slice(0, 2).toLowerCase();
    if (p === "0x") [b, t] = [16, t.slice(2)];
    else if (p === "0o") [b, t] = [8, t.slice(2)];
    else if (p === "0b") [b, t] = [2, t.slice(2)];
    else if (t.length > 1 && t.startsWith("0")) [b, t] = [8, t.slice(1)];
    else b = 10;
  }
  const digits = "0123456789abcdefghijklmnopqrstuvwxyz".slice(0, b);
  if (t === "" || b < 2 || b > 36 || [...t.toLowerCase()].some((c) => !digits.includes(c))) {
    fail(fname, `parsing ${JSON.stringify(s)}: invalid syntax`);
  }
  let v = 0n;
  for (const c of t.toLowerCase()) v = v * BigInt(b) + BigInt(digits.indexOf(c));
  return neg ? -v : v;
}

function checkBits(fname: string, s: string, v: bigint, bits: number, unsigned: boolean): bigint {
  const size = bits === 0 ? 64 : bits;
  const max = unsigned ? (1n << BigInt(size)) - 1n : (1n << BigInt(size - 1)) - 1n;
  const min = unsigned ? 0n : -(1n << BigInt(size - 1));
  if (v > max || v < min) fail(fname, `parsing ${JSON.stringify(s)}: value out of range`);
  return v;
}

function formatFloat(f: number, fmt: string, prec: number): string {
  switch (fmt) {
    case "f":
      return prec < 0 ? String(f) : f.toFixed(prec);
    case "e": {
      const t = prec < 0 ? f.toExponential() : f.toExponential(prec);
      return t.replace(/e([+-])(\d)$/, "e$10$2");
    }
    case "g":
      return prec < 0 ? String(f) : String(Number(f.toPrecision(prec)));
    default:
      return `%${fmt}`;
  }
}

const s = (a: Value[], i: number, f: string): string => strArg(a, i, f);

registerPackage("strconv", {
  Atoi: fn(1, (a) =>
    int(
      checkBits(
        "strconv.Atoi",
        s(a, 0, "strconv.Atoi"),
        parseInteger("strconv.Atoi", s(a, 0, "strconv.Atoi"), 10, false),
        64,
        false,
      ),
    ),
  ),
  Itoa: fn(1, (a) => str(intArg(a, 0, "strconv.Itoa").toString())),
  ParseInt: fn(3, (a) => {
    const f = "strconv.ParseInt";
    const text = s(a, 0, f);
    return int(
      checkBits(
        f,
        text,
        parseInteger(f, text, Number(intArg(a, 1, f)), false),
        Number(intArg(a, 2, f)),
        false,
      ),
    );
  }),
  ParseUint: fn(3, (a) => {
    const f = "strconv.ParseUint";
    const text = s(a, 0, f);
    return int(
      checkBits(f, text, parseInteger(f, text, Number(intArg(a, 1, f)), true), Number(intArg(a, 2, f)), true),
    );
  }),
  ParseFloat: fn(2, (a) => {
    const f = "strconv.ParseFloat";
    const text = s(a, 0, f).replace(/_/g, "");
    const low = text.toLowerCase();
    if (/^[+-]?(inf|infinity|nan)$/.test(low))
      fail(f, `parsing ${JSON.stringify(text)}: infinity and NaN are not CUE values`);
    if (
      !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) &&
      !/^[+-]?0x[0-9a-f.]+p[+-]?\d+$/i.test(text)
    ) {
      fail(f, `parsing ${JSON.stringify(text)}: invalid syntax`);
    }
    return { t: "float", v: Number(text) };
  }),
  ParseBool: fn(1, (a) => {
    const text = s(a, 0, "strconv.ParseBool");
    if (["1", "t", "T", "TRUE", "true", "True"].includes(text)) return TRUE;
    if (["0", "f", "F", "FALSE", "false", "False"].includes(text)) return FALSE;
    return fail("strconv.ParseBool", `parsing ${JSON.stringify(text)}: invalid syntax`);
  }),
  FormatInt: fn(2, (a) => {
    const base = Number(intArg(a, 1, "strconv.FormatInt"));
    if (base < 2 || base > 36) fail("strconv.FormatInt", `illegal base ${base}`);
    return str(intArg(a, 0, "strconv.FormatInt").toString(base));
  }),
  FormatUint: fn(2, (a) => {
    const v = intArg(a, 0, "strconv.FormatUint");
    if (v < 0n) fail("strconv.FormatUint", `negative value ${v}`);
    const base = Number(intArg(a, 1, "strconv.FormatUint"));
    if (base < 2 || base > 36) fail("strconv.FormatUint", `illegal base ${base}`);
    return str(v.toString(base));
  }),
  FormatFloat: fn(4, (a) => {
    const f = "strconv.FormatFloat";
    const fmt = String.fromCharCode(Number(intArg(a, 1, f)));
    return str(formatFloat(num(a, 0, f), fmt, Number(intArg(a, 2, f))));
  }),
  FormatBool: fn(1, (a) => str(String(bool(a, 0, "strconv.FormatBool")))),
  Quote: fn(1, (a) => str(JSON.stringify(s(a, 0, "strconv.Quote")))),
  Unquote: fn(1, (a) => {
    const text = s(a, 0, "strconv.Unquote");
    if (text.length >= 2 && text.startsWith("`") && text.endsWith("`") && !text.slice(1, -1).includes("`")) {
      return str(text.slice(1, -1));
    }
    if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
      try {
        return str(JSON.parse(text) as string);
      } catch {
        // fall through to the error below
      }
    }
    return fail("strconv.Unquote", "invalid syntax");
  }),
});
