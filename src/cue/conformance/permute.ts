/**
 * `@test(permute)`: the fields of a struct must evaluate to the same result in every declaration
 * order. The runner rewrites the source with the fields' text reordered, recompiles, and compares
 * the struct's value (order-insensitive JSON when concrete, else the engine's CUE equality) and the
 * set of errors (path and code) under it with those of the original order.
 *
 * Which order is wrong is not known here: a failure is silent (inline.ts) unless the other order
 * reports an error where the original order has none (`refusedInOtherOrder`) and the original
 * order's value is CUE's, which an `@test(eq)` on the same struct that passes shows. Then every
 * order gives CUE's value or an error: a failure, but no silent wrong answer.
 */

import type { Engine, EngineOptions, EngineValue } from "./engine.js";
import type { CaseResult, Range } from "./inline.js";
import { diffPlain, plainFromJSON } from "./plain.js";

/** At most 5! orders are tried. */
const maxFields = 5;

function factorial(n: number): number {
  return n <= 1 ? 1 : n * factorial(n - 1);
}

function permutations(n: number): number[][] {
  const out: number[][] = [];
  const rec = (prefix: number[], rest: number[]): void => {
    if (rest.length === 0) out.push(prefix);
    rest.forEach((x, i) => {
      rec([...prefix, x], [...rest.slice(0, i), ...rest.slice(i + 1)]);
    });
  };
  rec(
    [],
    Array.from({ length: n }, (_, i) => i),
  );
  return out;
}

interface Outcome {
  readonly value: EngineValue | undefined;
  readonly json: string | undefined;
  readonly errors: string;
}

function outcome(root: EngineValue, path: readonly string[]): Outcome {
  const value = root.lookup(path);
  const j = value?.toJSON(0);
  const under = root.errors.filter((e) => path.every((p, i) => e.path[i] === p));
  const errors = [...new Set(under.map((e) => `${e.path.join(".")}|${e.code}`))].sort().join(", ");
  return { value, json: j?.ok ? j.text : undefined, errors };
}

/** Checks one permute group; `file` is the file holding the ranges. */
export function checkPermute(
  engine: Engine,
  files: readonly { name: string; text: string }[],
  options: EngineOptions,
  file: string,
  structPath: readonly string[],
  ranges: readonly Range[],
  count: number | undefined,
): Omit<CaseResult, "name"> {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const n = sorted.length;
  if (count !== undefined && count !== factorial(n)) {
    return { status: "unsupported", reason: `permute count=${count}, but the runner found ${n} fields` };
  }
  if (n > maxFields)
    return { status: "unsupported", reason: `permute of ${n} fields (more than ${maxFields})` };
  const src = files.find((f) => f.name === file);
  if (src === undefined) return { status: "unsupported", reason: `file ${file} not found` };
  const pieces = sorted.map((r) => src.text.slice(r.start, r.end));
  const base = outcome(engine.compile(files, options), structPath);
  for (const perm of permutations(n).slice(1)) {
    let text = "";
    let at = 0;
    sorted.forEach((r, i) => {
      text += src.text.slice(at, r.start) + pieces[perm[i] ?? i];
      at = r.end;
    });
    text += src.text.slice(at);
    const root = engine.compile(
      files.map((f) => (f.name === file ? { name: f.name, text } : f)),
      options,
    );
    if (root.errors.some((e) => e.code === "syntax")) {
      return { status: "unsupported", reason: "reordered source does not parse" };
    }
    const got = outcome(root, structPath);
    const order = perm.join(",");
    if (got.errors !== base.errors) {
      return {
        status: "failed",
        reason: `order ${order}: errors [${got.errors}] differ from [${base.errors}]`,
        // The other order refuses where the original order gives a value: loud in that order.
        ...(base.errors === "" ? { refusedInOtherOrder: true as const } : {}),
      };
    }
    if (base.json !== undefined && got.json !== undefined) {
      const d = diffPlain(plainFromJSON(base.json), plainFromJSON(got.json));
      if (d !== undefined) return { status: "failed", reason: `order ${order}: ${d}` };
      continue;
    }
    if ((base.json === undefined) !== (got.json === undefined)) {
      return { status: "failed", reason: `order ${order}: concreteness differs from the original order` };
    }
    const equal = engine.inspect.equal;
    if (equal === undefined)
      return { status: "unsupported", reason: "non-concrete result needs inspect.equal" };
    if (base.value === undefined || got.value === undefined) {
      if (base.value !== got.value)
        return { status: "failed", reason: `order ${order}: value present in one order only` };
      continue;
    }
    if (!equal(base.value, got.value)) return { status: "failed", reason: `order ${order}: result differs` };
  }
  return { status: "passed" };
}
