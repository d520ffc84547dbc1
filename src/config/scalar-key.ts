/**
 * The exact structural key of a scalar value (string, number, boolean, undefined, null), as the
 * config's part sharing (load-worker.ts) and interning (intern.ts) both spell it, so equal scalars
 * key equal and nothing else does (-0 apart from 0). Undefined for objects and for what a Config
 * never holds (bigint, symbol, function): each caller keys those its own way.
 */
export function scalarKey(v: unknown): string | undefined {
  switch (typeof v) {
    case "string":
      return JSON.stringify(v);
    case "number":
      return Object.is(v, -0) ? "n-0" : `n${v}`;
    case "boolean":
      return v ? "t" : "f";
    case "undefined":
      return "u";
    case "object":
      return v === null ? "z" : undefined;
    default:
      return undefined;
  }
}
