/**
 * Nagios macro syntax: `$NAME$` is replaced by the macro's value and `$$` is a literal `$`. A name
 * the resolver does not know is left exactly as written (`$FOO$`), as Nagios does, so a typo shows up
 * in the plugin's arguments instead of silently vanishing. A `$` that does not start a well-formed
 * reference (`$5`, a lone `$` at the end) is kept as it is.
 */

/** Gives a macro's value by name, or undefined for a name it does not know. */
export type MacroResolver = (name: string) => string | undefined;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One piece of a template: literal text, or a reference to a macro by name. */
export type TemplatePart = { readonly text: string } | { readonly macro: string };

/**
 * Splits a template into literal text and macro references. `$$` becomes a literal `$`. Used by the
 * expanders below, which differ only in what they put in place of a reference.
 */
export function parseTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let lit = "";
  let i = 0;
  while (i < text.length) {
    const d = text.indexOf("$", i);
    if (d < 0) {
      lit += text.slice(i);
      break;
    }
    lit += text.slice(i, d);
    if (text[d + 1] === "$") {
      lit += "$";
      i = d + 2;
      continue;
    }
    const close = text.indexOf("$", d + 1);
    const name = close < 0 ? "" : text.slice(d + 1, close);
    if (close < 0 || !NAME.test(name)) {
      lit += "$";
      i = d + 1;
      continue;
    }
    if (lit !== "") parts.push({ text: lit });
    lit = "";
    parts.push({ macro: name });
    i = close + 1;
  }
  if (lit !== "") parts.push({ text: lit });
  return parts;
}

/** Expands every macro reference in `text`; unknown names stay as written. */
export function expandMacros(text: string, resolve: MacroResolver): string {
  let out = "";
  for (const p of parseTemplate(text)) {
    if ("text" in p) out += p.text;
    else out += resolve(p.macro) ?? `$${p.macro}$`;
  }
  return out;
}
