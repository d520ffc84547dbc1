/**
 * Inline `@test(...)` directives: what they are, where they apply, and how to read their arguments.
 * `collectDirectives` walks a parsed file and returns every `@test` attribute with the path of the
 * field (or struct) it annotates.
 */

import type * as ast from "../syntax/ast.js";
import { parseExpression } from "../syntax/parser.js";
import { type AttrArg, splitAttrArgs, splitPath } from "./attr-args.js";
import type { EngineError } from "./engine.js";

/** How strictly assertions are checked. */
export interface CheckOptions {
  /** Also compare the `pos=[…]` positions of `@test(err)` (cue compares them; by default we do not). */
  readonly strictPos?: boolean;
}

/** The outcome of one assertion. */
export interface CaseResult {
  readonly name: string;
  readonly status: "passed" | "failed" | "unsupported";
  readonly reason?: string;
  /**
   * On a failure: the engine reported no error on the asserted path, so the user would get a value
   * where CUE errors, or a different value, with no error (see `silent.ts`).
   */
  readonly silent?: true;
  /** `@test(permute)`: another order gave errors where the original order gave none (permute.ts). */
  readonly refusedInOtherOrder?: true;
}

/** One `@test` attribute with where it applies. */
export interface Directive {
  readonly file: string;
  readonly source: string;
  /** Path of the annotated field, or of the struct holding a declaration attribute. */
  readonly path: readonly string[];
  readonly name: string;
  readonly version?: string;
  readonly args: readonly AttrArg[];
  /** Set when the field cannot be located statically (under a comprehension or dynamic label). */
  readonly unlocatable?: string;
  /** Source range of the declaration (in its explicit struct) carrying a field attribute. */
  readonly declRange?: Range;
  /** Path of the explicit struct whose declarations `permute` reorders. */
  readonly structPath: readonly string[];
  /** For declaration attributes: ranges of the fields of the struct they sit in. */
  readonly siblings?: readonly Range[];
  /**
   * Offset that `pos=[line:col]` line deltas count from: the annotated field, or, for a declaration
   * attribute, the struct it sits in (undefined: the attribute itself).
   */
  readonly baseOffset?: number;
  /** The imports of the file (local name and path), so expectations can use the same packages. */
  readonly imports: readonly { readonly name: string; readonly path: string }[];
  /** The field carries `@test(todo)`: failures are expected. */
  todo: boolean;
}

/** A 0-based source range. */
export interface Range {
  readonly start: number;
  readonly end: number;
}

/** Whether any file contains an `@test(` attribute (inline mode). */
export function hasInlineTests(files: readonly { text: string }[]): boolean {
  return files.some((f) => f.text.includes("@test("));
}

/** Collects the directives of one parsed file. */
export function collectDirectives(file: ast.File, source: string): Directive[] {
  const out: Directive[] = [];
  const imports = file.imports.map((i) => ({
    name: i.name?.name ?? i.path.split(":")[0]?.split("/").pop() ?? "",
    path: i.path,
  }));
  const fromAttrs = (
    attrs: readonly ast.Attribute[],
    path: readonly string[],
    unlocatable: string | undefined,
    place: {
      declRange?: Range;
      structPath: readonly string[];
      siblings?: readonly Range[];
      baseOffset?: number;
    },
  ): void => {
    const here: Directive[] = [];
    for (const a of attrs) {
      if (a.name !== "test") continue;
      const args = splitAttrArgs(source, a.bodyOffset, a.body.length);
      const first = args[0];
      if (first === undefined) continue; // `@test()` placeholder
      const full = first.key ?? first.text;
      const [name = "", version] = full.split(":");
      here.push({
        file: file.filename,
        source,
        path,
        name,
        version,
        args,
        unlocatable,
        todo: false,
        imports,
        ...place,
      });
    }
    const todo = here.some((d) => d.name === "todo" && d.version === undefined);
    for (const d of here) {
      d.todo = todo;
      out.push(d);
    }
  };
  const walkDecls = (
    decls: readonly ast.Decl[],
    path: readonly string[],
    unlocatable?: string,
    outer?: { declRange: Range; structPath: readonly string[] },
    structStart?: number,
  ): void => {
    const siblings = decls
      .filter((d) => d.kind === "Field")
      .map((d) => ({ start: d.pos.offset, end: d.end }));
    for (const d of decls) {
      switch (d.kind) {
        case "Attribute":
          fromAttrs([d], path, unlocatable, {
            structPath: path,
            siblings,
            ...(structStart === undefined ? {} : { baseOffset: structStart }),
          });
          break;
        case "Field": {
          const label = staticLabel(d.label);
          const p = [...path, label ?? "?"];
          const why = unlocatable ?? (label === undefined ? `dynamic label ${d.label.kind}` : undefined);
          // In `a: b: c` shorthand the unit a struct reorders is the outermost field.
          const here = outer ?? { declRange: { start: d.pos.offset, end: d.end }, structPath: path };
          fromAttrs(d.attributes, p, why, { ...here, baseOffset: d.pos.offset });
          if (d.value.kind === "Struct" && d.value.implicit) walkDecls(d.value.decls, p, why, here);
          else walkExpr(d.value, p, why);
          break;
        }
        case "Comprehension":
          walkDecls(d.value.decls, path, unlocatable ?? "inside a comprehension");
          break;
        case "Embed":
          walkExpr(d.expr, path, unlocatable);
          break;
        case "Let":
        case "Ellipsis":
        case "BadDecl":
          break;
        default: {
          const never: never = d;
          throw new Error(`unexpected declaration ${String(never)}`);
        }
      }
    }
  };
  const walkExpr = (e: ast.Expr, path: readonly string[], unlocatable?: string): void => {
    switch (e.kind) {
      case "Struct":
        walkDecls(e.decls, path, unlocatable, undefined, e.pos.offset);
        break;
      case "Paren":
        walkExpr(e.expr, path, unlocatable);
        break;
      case "Alias":
        walkExpr(e.expr, path, unlocatable);
        break;
      case "Binary":
        if (e.op === "&") {
          walkExpr(e.left, path, unlocatable);
          walkExpr(e.right, path, unlocatable);
        } else {
          walkExpr(e.left, path, unlocatable ?? `operand of ${e.op}`);
          walkExpr(e.right, path, unlocatable ?? `operand of ${e.op}`);
        }
        break;
      case "Call":
        for (const a of e.args) walkExpr(a, path, unlocatable ?? "inside a call");
        break;
      case "List":
        e.elems.forEach((el, i) => {
          if (el.kind === "Comprehension")
            walkDecls(el.value.decls, path, unlocatable ?? "inside a comprehension");
          else walkExpr(el, [...path, String(i)], unlocatable);
        });
        break;
      default:
        break;
    }
  };
  walkDecls(file.decls, []);
  return out;
}

function staticLabel(l: ast.Label): string | undefined {
  switch (l.kind) {
    case "Ident":
      return l.name;
    case "String":
      return l.value;
    default:
      return undefined;
  }
}

export function option(d: Directive, key: string): AttrArg | undefined {
  return d.args.find((a, i) => i > 0 && a.key === key);
}

export function flag(d: Directive, word: string): boolean {
  return d.args.some((a, i) => i > 0 && a.key === undefined && a.text === word);
}

export function pathOption(d: Directive, key: string): string[] {
  const a = option(d, key);
  if (a === undefined) return [];
  // `_x$pkg` names a hidden field of package pkg; the engine knows one package, so it is `_x`.
  return splitPath(a.text).map((l) => (l.startsWith("_") ? l.replace(/\$[A-Za-z0-9_]+$/, "") : l));
}

export function unsupportedNear(
  errors: readonly EngineError[],
  target: readonly string[],
): EngineError | undefined {
  return errors.find(
    (e) => e.code === "unsupported" && (isPrefix(e.path, target) || isPrefix(target, e.path)),
  );
}

export function isPrefix(p: readonly string[], of: readonly string[]): boolean {
  return p.length <= of.length && p.every((x, i) => x === of[i]);
}

export function stringArg(text: string): string {
  if (text.startsWith('"') || text.startsWith("#")) {
    const r = parseExpression("arg.cue", text);
    if (r.node.kind === "String") return r.node.value;
  }
  return text;
}
