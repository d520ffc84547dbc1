/**
 * The builtin registry: predeclared identifiers (`int`, `len`, `div`…) and importable packages
 * (`strings`, `list`, `math`…). Packages register their members with {@link registerPackage};
 * a function declared as a validator may be called with one argument fewer to yield a constraint
 * (`strings.MinRunes(3)`), and referenced without a call when it takes only the value
 * (`net.IPv4`).
 */

import type * as ast from "../../syntax/ast.js";
import type { Pos } from "../../syntax/position.js";
import { equalVertex } from "../equal.js";
import { type BottomV, bottom, type FuncV, isAtom, type Validator, type Value } from "../values.js";

/** A builtin function. `fn` receives evaluated arguments and may throw {@link ArgError}. */
export interface BuiltinFn {
  readonly kind: "fn";
  /** Number of parameters (the last ones may be optional when `minParams` is lower). */
  readonly params: number;
  readonly minParams?: number;
  /** Variadic: extra arguments are passed through. */
  readonly variadic?: boolean;
  /** Callable with `params - 1` arguments to make a validator of its first parameter. */
  readonly validator?: boolean;
  /** The kinds of that first parameter (the validator's kind, as cue reports it); unset: any. */
  readonly subject?: number;
  readonly fn: (args: Value[]) => Value;
}

export type Member = BuiltinFn | { readonly kind: "value"; readonly value: Value };

/** Thrown by argument helpers; turned into a bottom value at the call. */
export class ArgError extends Error {
  override name = "ArgError";
  readonly bottom: BottomV;
  /** The 0-based argument the error is about, when it is about one: cue points at it. */
  readonly arg: number | undefined;
  constructor(b: BottomV, arg?: number) {
    super(b.err.message);
    this.bottom = b;
    this.arg = arg;
  }
}

const packages = new Map<string, Map<string, Member>>();

/** Registers (or extends) a builtin package. */
export function registerPackage(path: string, members: Record<string, Member>): void {
  let m = packages.get(path);
  if (m === undefined) {
    m = new Map();
    packages.set(path, m);
  }
  for (const [k, v] of Object.entries(members)) m.set(k, v);
}

export function hasPackage(path: string): boolean {
  return packages.has(path);
}

/** Shorthand for declaring a function member. */
export function fn(params: number, f: (args: Value[]) => Value, opts: Partial<BuiltinFn> = {}): BuiltinFn {
  return { kind: "fn", params, fn: f, ...opts };
}

/** The validator call sites being checked, with the value each is checking. */
const activeChecks = new Map<object, Value>();

function toFunc(qualified: string, def: BuiltinFn): FuncV {
  const call = (args: Value[], pos: Pos | undefined, argPos?: readonly Pos[]): Value => {
    const min = def.minParams ?? def.params;
    if (def.validator && args.length === def.params - 1) {
      return {
        t: "basic",
        k: 255,
        bounds: [],
        validators: [
          {
            name: `${qualified}(${args.map(fmtArg).join(", ")})`,
            kind: def.subject,
            check: (v) => {
              // A validator re-applied to a value it is already checking (its own call site,
              // reached again through unification) passes: the outer check decides. Applied to
              // that same value again (`x: matchN(1, [x])` on `x: 3`), it would check it forever:
              // cue reports a structural cycle.
              if (pos !== undefined) {
                const outer = activeChecks.get(pos);
                if (outer !== undefined) return recheck(outer, v, pos);
                activeChecks.set(pos, v);
              }
              try {
                const r = invoke(def, [v, ...args], pos);
                if (r.t === "bool")
                  return r.v ? undefined : `does not satisfy ${qualified}(${args.map(fmtArg).join(", ")})`;
                if (r.t === "bottom") return r;
                return undefined;
              } finally {
                if (pos !== undefined) activeChecks.delete(pos);
              }
            },
          },
        ],
      };
    }
    if (args.length < min || (!def.variadic && args.length > def.params)) {
      return bottom(
        "eval",
        `${args.length < min ? "not enough" : "too many"} arguments in call to ${qualified} (have ${args.length}, want ${def.params})`,
        pos ? [pos] : [],
      );
    }
    for (const a of args) if (a.t === "bottom") return a;
    return invoke(def, args, pos, argPos);
  };
  const f: FuncV = { t: "func", name: qualified, call };
  if (def.validator && def.params === 1) {
    const g: FuncV = {
      ...f,
      asValidator: {
        // A bare validator is the call without arguments (cue prints `json.Valid()`).
        name: `${qualified}()`,
        check: (v) => {
          const r = invoke(def, [v], undefined);
          if (r.t === "bool") return r.v ? undefined : `does not satisfy ${qualified}`;
          if (r.t === "bottom") return r;
          return undefined;
        },
      },
    };
    if (g.asValidator !== undefined) validatorFuncs.set(g.asValidator, g);
    return g;
  }
  return f;
}

/**
 * The builtin a bare validator stands for (`a: json.Valid`): a field holding it can still be
 * called (`a("3")`). Validators made by a call (`json.Valid()`) are not here: they cannot be
 * called again.
 */
const validatorFuncs = new WeakMap<Validator, FuncV>();

/** The builtin behind `v` when `v` is exactly one bare builtin validator, else undefined. */
export function bareValidatorFunc(v: Value): FuncV | undefined {
  if (v.t !== "basic" || v.bounds.length !== 0 || v.validators.length !== 1) return undefined;
  const x = v.validators[0];
  return x === undefined ? undefined : validatorFuncs.get(x);
}

import { formatValue } from "../values.js";

function recheck(outer: Value, v: Value, pos: Pos): BottomV | undefined {
  const same =
    outer === v ||
    (isAtom(outer) && isAtom(v) && outer.t === v.t && formatValue(outer) === formatValue(v)) ||
    (outer.t === "vertex" && v.t === "vertex" && hasFields(v.v) && equalVertex(outer.v, v.v, 0));
  if (!same || (v.t === "vertex" && !hasFields(v.v))) return undefined;
  return bottom("structural cycle", "structural cycle", [pos]);
}

function hasFields(v: import("../vertex.js").Vertex): boolean {
  if (v.isList) return v.listLen > 0;
  if (v.arcs === undefined) return false;
  for (const label of v.arcs.keys()) if (!label.startsWith("_") && !label.startsWith("#")) return true;
  return false;
}

function fmtArg(v: Value): string {
  return formatValue(v);
}

function invoke(def: BuiltinFn, args: Value[], pos: Pos | undefined, argPos?: readonly Pos[]): Value {
  try {
    const r = def.fn(args);
    if (r.t === "bottom" && pos !== undefined && r.err.positions.length === 0) r.err.positions.push(pos);
    return r;
  } catch (e) {
    if (e instanceof ArgError) {
      const at = (e.arg === undefined ? undefined : argPos?.[e.arg]) ?? pos;
      if (at !== undefined && e.bottom.err.positions.length === 0) e.bottom.err.positions.push(at);
      return e.bottom;
    }
    if (e instanceof RangeError) return bottom("limit", `builtin failed: ${e.message}`, pos ? [pos] : []);
    throw e;
  }
}

const funcCache = new Map<string, Value>();

/** `pkg.Name` for an imported package path. */
export function lookupPackageMember(path: string, name: string, pos: Pos): Value {
  const key = `${path}\0${name}`;
  const cached = funcCache.get(key);
  if (cached !== undefined) return cached;
  const pkg = packages.get(path);
  if (pkg === undefined) return bottom("unsupported", `package "${path}" is not supported`, [pos]);
  const m = pkg.get(name);
  if (m === undefined) {
    return bottom("unsupported", `${path}.${name} is not supported (undefined or not implemented)`, [pos]);
  }
  const short = path.split("/").pop() ?? path;
  const v = m.kind === "value" ? m.value : toFunc(`${short}.${name}`, m);
  funcCache.set(key, v);
  return v;
}

const universe = new Map<string, Value>();

/** Registers a predeclared identifier. */
export function registerPredeclared(name: string, m: Member): void {
  universe.set(name, m.kind === "value" ? m.value : toFunc(name, m));
}

/** A predeclared identifier (`int`, `len`…), or undefined. */
export function predeclared(name: string): Value | undefined {
  return universe.get(name);
}

/** Calls a function value with evaluated arguments. */
export function callBuiltin(f: FuncV, args: Value[], x: ast.Call): Value {
  return f.call(
    args,
    x.pos,
    x.args.map((a) => a.pos),
  );
}
