/**
 * Decoding of CUE numeric literals: `1_000`, `0x1F`, `0o17`, `0b101`, SI/IEC multipliers (`1.5K`,
 * `2Mi`, truncated toward zero), floats (`1.`, `.5`, `1e3`).
 */

/** The decoded value of a numeric literal, or an error message. */
export type NumberValue =
  | { readonly kind: "int"; readonly value: bigint }
  | { readonly kind: "float"; readonly text: string; readonly value: number }
  | { readonly kind: "error"; readonly message: string };

const multipliers: Record<string, bigint> = {
  K: 1000n,
  M: 1000n ** 2n,
  G: 1000n ** 3n,
  T: 1000n ** 4n,
  P: 1000n ** 5n,
  Ki: 1024n,
  Mi: 1024n ** 2n,
  Gi: 1024n ** 3n,
  Ti: 1024n ** 4n,
  Pi: 1024n ** 5n,
};

/** Decodes the raw text of a number token as produced by the lexer. */
export function decodeNumber(raw: string): NumberValue {
  // Fast path: a short plain decimal integer.
  if (raw.length < 16 && /^(?:0|[1-9][0-9]*)$/.test(raw)) return { kind: "int", value: BigInt(Number(raw)) };
  const text = raw.replace(/_/g, "");
  if (raw.includes("__") || raw.endsWith("_"))
    return { kind: "error", message: `illegal '_' in number ${raw}` };
  const lower = text.slice(0, 2).toLowerCase();
  if (lower === "0x" || lower === "0o" || lower === "0b") {
    const digits = text.slice(2);
    const re = lower === "0x" ? /^[0-9a-fA-F]+$/ : lower === "0o" ? /^[0-7]+$/ : /^[01]+$/;
    if (!re.test(digits)) return { kind: "error", message: `illegal number literal ${raw}` };
    return { kind: "int", value: BigInt(`0${lower[1]}${digits}`) };
  }
  const m = /^([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?([KMGTP]i?)?$/.exec(text);
  if (m === null) return { kind: "error", message: `illegal number literal ${raw}` };
  const intPart = m[1] ?? "";
  const frac = m[2];
  const exp = m[3];
  const mult = m[4];
  if (intPart === "" && (frac === undefined || frac === "")) {
    return { kind: "error", message: `illegal number literal ${raw}` };
  }
  if (mult !== undefined) {
    if (exp !== undefined) return { kind: "error", message: `illegal number literal ${raw}` };
    const f = frac ?? "";
    const scaled = BigInt((intPart || "0") + f) * (multipliers[mult] ?? 1n);
    return { kind: "int", value: scaled / 10n ** BigInt(f.length) };
  }
  if (frac === undefined && exp === undefined) {
    if (intPart.length > 1 && intPart.startsWith("0")) {
      return { kind: "error", message: `illegal integer number ${raw} (leading zero)` };
    }
    return { kind: "int", value: BigInt(intPart) };
  }
  let norm = intPart === "" ? "0" : intPart;
  if (frac !== undefined && frac !== "") norm += `.${frac}`;
  else if (frac !== undefined) norm += ".0";
  if (exp !== undefined) norm += `e${exp}`;
  return { kind: "float", text: norm, value: Number(norm) };
}
