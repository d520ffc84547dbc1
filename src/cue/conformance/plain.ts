/**
 * Plain data values used to compare expected and actual results: JSON-like, but keeping the int/float
 * distinction and separating regular fields from definitions and hidden fields (which export drops
 * and the runner checks through lookups).
 */

import type * as ast from "../syntax/ast.js";
import { identKind } from "../syntax/ast.js";

/** A concrete value. */
export type Plain =
  | { readonly t: "null" }
  | { readonly t: "bool"; readonly v: boolean }
  | { readonly t: "int"; readonly v: bigint }
  | { readonly t: "float"; readonly v: number }
  | { readonly t: "string"; readonly v: string }
  | { readonly t: "list"; readonly items: readonly Plain[] }
  | {
      readonly t: "struct";
      /** Regular fields (what export shows). */
      readonly fields: ReadonlyMap<string, Plain>;
      /** Definitions and hidden fields (checked by lookup). */
      readonly extra: ReadonlyMap<string, Plain>;
    };

/**
 * Converts a literal expression (as written in `@test(eq, …)`) to plain data, or returns a reason why
 * it is not plain (non-concrete, references, optional fields…): such expectations are unsupported.
 */
export function plainFromExpr(e: ast.Expr): Plain | string {
  switch (e.kind) {
    case "Null":
      return { t: "null" };
    case "Bool":
      return { t: "bool", v: e.value };
    case "Int":
      return { t: "int", v: e.value };
    case "Float":
      return { t: "float", v: e.value };
    case "String":
      return { t: "string", v: e.value };
    case "Bytes":
      return { t: "string", v: Buffer.from(e.value).toString("base64") };
    case "Paren":
      return plainFromExpr(e.expr);
    case "Unary": {
      if (e.op !== "-" && e.op !== "+") return `operator ${e.op}`;
      const x = plainFromExpr(e.expr);
      if (typeof x === "string") return x;
      if (x.t === "int") return { t: "int", v: e.op === "-" ? -x.v : x.v };
      if (x.t === "float") return { t: "float", v: e.op === "-" ? -x.v : x.v };
      return `operator ${e.op} on ${x.t}`;
    }
    case "List": {
      if (e.ellipsis !== undefined) return "open list";
      const items: Plain[] = [];
      for (const el of e.elems) {
        if (el.kind === "Comprehension") return "comprehension";
        const p = plainFromExpr(el);
        if (typeof p === "string") return p;
        items.push(p);
      }
      return { t: "list", items };
    }
    case "Struct":
      return plainFromDecls(e.decls);
    default:
      return `non-literal ${e.kind}`;
  }
}

function plainFromDecls(decls: readonly ast.Decl[]): Plain | string {
  const fields = new Map<string, Plain>();
  const extra = new Map<string, Plain>();
  for (const d of decls) {
    if (d.kind === "Attribute") continue;
    if (d.kind !== "Field") return `declaration ${d.kind}`;
    if (d.constraint !== "regular") return `${d.constraint} field`;
    let name: string;
    let regular: boolean;
    if (d.label.kind === "Ident") {
      // `_x$pkg` selects a package-scoped hidden field in cue's test format (`$secret` is a name).
      name = d.label.name.replace(/^(_#?[A-Za-z0-9_]+)\$[A-Za-z0-9_]+$/, "$1");
      regular = identKind(name) === "regular";
    } else if (d.label.kind === "String") {
      name = d.label.value;
      regular = true;
    } else {
      return `label ${d.label.kind}`;
    }
    const v = plainFromExpr(d.value);
    if (typeof v === "string") return v;
    const into = regular ? fields : extra;
    if (into.has(name)) return `duplicate field ${name}`;
    into.set(name, v);
  }
  return { t: "struct", fields, extra };
}

/** Parses JSON text, keeping numbers with a fraction or exponent as floats and others as ints. */
export function plainFromJSON(text: string): Plain {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && /\s/.test(text[i] ?? "")) i++;
  };
  const value = (): Plain => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const fields = new Map<string, Plain>();
      ws();
      if (text[i] === "}") {
        i++;
        return { t: "struct", fields, extra: new Map() };
      }
      for (;;) {
        ws();
        const k = str();
        ws();
        i++; // :
        fields.set(k, value());
        ws();
        if (text[i++] === "}") return { t: "struct", fields, extra: new Map() };
      }
    }
    if (c === "[") {
      i++;
      const items: Plain[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return { t: "list", items };
      }
      for (;;) {
        items.push(value());
        ws();
        if (text[i++] === "]") return { t: "list", items };
      }
    }
    if (c === '"') return { t: "string", v: str() };
    if (text.startsWith("null", i)) {
      i += 4;
      return { t: "null" };
    }
    if (text.startsWith("true", i)) {
      i += 4;
      return { t: "bool", v: true };
    }
    if (text.startsWith("false", i)) {
      i += 5;
      return { t: "bool", v: false };
    }
    const m = /^-?[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (m === null) throw new Error(`bad JSON at ${i}`);
    i += m[0].length;
    if (m[1] !== undefined || m[2] !== undefined) return { t: "float", v: Number(m[0]) };
    return { t: "int", v: BigInt(m[0]) };
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  return value();
}

/** Structural equality of regular content; returns a description of the first difference or undefined. */
export function diffPlain(want: Plain, got: Plain, path: readonly string[] = []): string | undefined {
  const at = path.length === 0 ? "value" : path.join(".");
  if (want.t !== got.t) return `${at}: want ${render(want)}, got ${render(got)}`;
  switch (want.t) {
    case "null":
      return undefined;
    case "bool":
    case "int":
    case "float":
    case "string":
      return want.v === (got as typeof want).v
        ? undefined
        : `${at}: want ${render(want)}, got ${render(got)}`;
    case "list": {
      const g = got as typeof want;
      if (want.items.length !== g.items.length) {
        return `${at}: want list of ${want.items.length}, got ${g.items.length}`;
      }
      for (let k = 0; k < want.items.length; k++) {
        const d = diffPlain(want.items[k] as Plain, g.items[k] as Plain, [...path, String(k)]);
        if (d !== undefined) return d;
      }
      return undefined;
    }
    case "struct": {
      const g = got as typeof want;
      for (const [k, w] of want.fields) {
        const x = g.fields.get(k);
        if (x === undefined) return `${[...path, k].join(".")}: missing`;
        const d = diffPlain(w, x, [...path, k]);
        if (d !== undefined) return d;
      }
      for (const k of g.fields.keys()) {
        if (!want.fields.has(k)) return `${[...path, k].join(".")}: unexpected field`;
      }
      return undefined;
    }
    default: {
      const never: never = want;
      return String(never);
    }
  }
}

/** A short rendering for messages. */
export function render(p: Plain): string {
  switch (p.t) {
    case "null":
      return "null";
    case "bool":
    case "int":
      return String(p.v);
    case "float":
      return Number.isInteger(p.v) ? `${p.v}.0` : String(p.v);
    case "string":
      return JSON.stringify(p.v);
    case "list":
      return `[${p.items.map(render).join(", ")}]`;
    case "struct":
      return `{${[...p.fields].map(([k, v]) => `${k}: ${render(v)}`).join(", ")}}`;
    default: {
      const never: never = p;
      return String(never);
    }
  }
}
