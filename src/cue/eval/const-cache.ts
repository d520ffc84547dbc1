/**
 * Constant expressions — built only from literals, operators and predeclared identifiers, such as
 * `*"60s" | string` or `int & >=1 & <=10` — evaluate the same everywhere. Definitions repeat them for
 * every use, so their values are computed once per syntax node (checking at each use that no
 * enclosing scope shadows a predeclared name they mention).
 */

import type * as ast from "../syntax/ast.js";
import { predeclared } from "./builtins/registry.js";
import { evalExpr } from "./expr.js";
import { resolveName } from "./scope.js";
import type { Value } from "./values.js";
import { type Frame, Vertex } from "./vertex.js";

interface ConstInfo {
  readonly idents: readonly string[];
  value: Value | undefined;
  computing: boolean;
}

const cache = new WeakMap<ast.Expr, ConstInfo | null>();

function analyze(x: ast.Expr, idents: string[]): boolean {
  switch (x.kind) {
    case "Int":
    case "Float":
    case "String":
    case "Bytes":
    case "Bool":
    case "Null":
      return true;
    case "Ident":
      if (x.name === "_") return true;
      if (predeclared(x.name) === undefined || x.name === "len" || x.name === "or") return false;
      if (!idents.includes(x.name)) idents.push(x.name);
      return true;
    case "Unary":
      return analyze(x.expr, idents);
    case "Paren":
      return analyze(x.expr, idents);
    case "Binary":
      return analyze(x.left, idents) && analyze(x.right, idents);
    default:
      return false;
  }
}

let scratch: Frame | undefined;

/** The value of a constant expression, or undefined if `x` is not constant in `env`. */
export function constValue(x: ast.Expr, env: Frame): Value | undefined {
  let info = cache.get(x);
  if (info === undefined) {
    const idents: string[] = [];
    info = analyze(x, idents) ? { idents, value: undefined, computing: false } : null;
    cache.set(x, info);
  }
  if (info === null || info.computing) return undefined;
  for (const name of info.idents) if (resolveName(name, env) !== undefined) return undefined;
  if (info.value === undefined) {
    scratch ??= {
      up: undefined,
      vertex: new Vertex(undefined, ""),
      scope: undefined,
      lit: undefined,
      binds: undefined,
      lets: undefined,
      imports: undefined,
    };
    info.computing = true;
    try {
      info.value = evalExpr(x, scratch);
    } finally {
      info.computing = false;
    }
  }
  return info.value;
}
