/**
 * Splits the body of an `@test(...)` attribute into arguments: positional ones (`eq`, `{a: 1}`) and
 * `key=value` ones (`code=eval`, `contains="x"`, `at=a.b`). Splitting uses the CUE lexer so commas
 * inside strings, lists and structs do not split.
 */

import { createLexer } from "../syntax/lexer.js";

/** One argument with its raw text and the offset of that text in the source file. */
export interface AttrArg {
  /** For `key=value` arguments, the key (e.g. `code`, `pos`); undefined for positional ones. */
  readonly key?: string;
  /** The raw text of the value (or of the whole positional argument), trimmed. */
  readonly text: string;
  /** Offset of `text` in the source file. */
  readonly offset: number;
}

/** Splits the attribute body found at `bodyOffset` (length `bodyLength`) of `source`. */
export function splitAttrArgs(source: string, bodyOffset: number, bodyLength: number): AttrArg[] {
  const end = bodyOffset + bodyLength;
  const lexer = createLexer(source, bodyOffset, end);
  const args: AttrArg[] = [];
  let depth = 0;
  let argStart = bodyOffset;
  const push = (stop: number): void => {
    const raw = source.slice(argStart, stop);
    const lead = raw.length - raw.trimStart().length;
    const text = raw.trim();
    if (text === "") return;
    const offset = argStart + lead;
    const m = /^([A-Za-z_][A-Za-z0-9_:]*)\s*=(?![=~])\s*/.exec(text);
    if (m !== null) {
      args.push({ key: m[1], text: text.slice(m[0].length), offset: offset + m[0].length });
    } else {
      args.push({ text, offset });
    }
  };
  for (;;) {
    const t = lexer.next();
    if (t.type === "EOF") break;
    if (t.type === "(" || t.type === "[" || t.type === "{") depth++;
    else if (t.type === ")" || t.type === "]" || t.type === "}") depth--;
    else if (t.type === "," && !t.implicit && depth === 0) {
      push(t.start);
      argStart = t.end;
    }
  }
  push(end);
  return args;
}

export { splitPath } from "../syntax/path.js";
