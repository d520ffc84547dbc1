/**
 * Counting the assertions of a file the parser cannot read (syntax of an experiment the engine
 * lacks): its `@test(…)` attributes are found in the text, so that they still count, as
 * unsupported, instead of vanishing from the totals. Attributes nested in another attribute's
 * expectation (`@test(eq, {a: _|_ @test(err)})`) belong to that assertion and are not counted.
 */

const assertionNames = new Set(["eq", "err", "permute", "kind", "closed", "allows"]);

/** The number of top-level `@test` assertions written in a CUE source text. */
export function countWrittenAssertions(text: string): number {
  let n = 0;
  let i = text.indexOf("@test(");
  while (i >= 0) {
    const open = i + "@test(".length;
    const close = matchingParen(text, open);
    const head = text.slice(open, close).split(",")[0]?.trim() ?? "";
    const [full = "", version] = head.split(":");
    const name = full.split("=")[0] ?? "";
    const hasValue = text.slice(open, close).includes(",");
    if (
      assertionNames.has(name) &&
      (version === undefined || version === "v3") &&
      (name !== "eq" || hasValue)
    ) {
      n++;
    }
    i = text.indexOf("@test(", close);
  }
  return n;
}

/** The offset of the `)` closing the attribute whose body starts at `from` (strings skipped). */
function matchingParen(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      const triple = text.startsWith(c.repeat(3), i);
      const end = triple ? text.indexOf(c.repeat(3), i + 3) : closingQuote(text, i + 1, c);
      if (end < 0) return text.length;
      i = triple ? end + 2 : end;
      continue;
    }
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return text.length;
}

function closingQuote(text: string, from: number, q: string): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === q) return i;
    else if (text[i] === "\n") return i;
  }
  return -1;
}
