/**
 * CUE path strings as tools write them (`hosts.web1.check`, `a."b.c".#D`, `list.0`), split into
 * their labels.
 */

/** Splits a path like `a.b."c.d".#e` into labels; quoted labels are decoded. */
export function splitPath(text: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|([^."]+)/g;
  for (const m of text.matchAll(re)) {
    if (m[1] !== undefined) {
      try {
        out.push(JSON.parse(`"${m[1]}"`) as string);
      } catch {
        out.push(m[1]);
      }
    } else out.push(m[2] ?? "");
  }
  return out;
}
