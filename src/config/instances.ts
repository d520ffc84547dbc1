import type { ConfigDiagnostic } from "./diagnostic.js";
import { formatPath } from "./diagnostic.js";
import type { DocPath } from "./locate.js";

/**
 * The places one problem occurs in: a mistake in a template (a pattern constraint
 * `hosts: [Name=string]: {...}`, a hidden `_host` every host unifies with) is the same error, at the
 * same position of the template, in every host that uses it. The loader shows it once, at the
 * template, and says how many instances have it and names the first ones:
 * `… (in 10,000 hosts: h0, h1 and 9,998 more)`; outside hosts, or more than once in one host,
 * by their paths: `(in 3 places: contacts.a.x, contacts.b.x and contacts.c.x)`.
 */
export interface Instances {
  /** The diagnostic's index in the loader's list. */
  readonly index: number;
  add(path: DocPath): void;
  /** The text to append and the number of places; undefined for a problem found once. */
  counted(): { text: string; n: number } | undefined;
}

/** How many instances are named at most: all of three, or the first two and "N more". */
const NAMED = 3;

export function createInstances(index: number): Instances {
  let places = 0;
  let outside = false;
  const hosts = new Set<string>();
  const hostNames: string[] = [];
  const paths: string[] = [];
  return {
    index,
    add(path) {
      places++;
      if (paths.length < NAMED) paths.push(formatPath(path));
      if (path[0] !== "hosts" || path.length < 2) {
        outside = true;
        return;
      }
      const host = String(path[1]);
      if (hosts.has(host)) return;
      hosts.add(host);
      if (hostNames.length < NAMED) hostNames.push(formatPath([host]));
    },
    counted() {
      if (places < 2) return undefined;
      if (!outside && hosts.size === places) {
        return { text: `(in ${thousands(places)} hosts: ${list(hostNames, places)})`, n: places };
      }
      return { text: `(in ${thousands(places)} places: ${list(paths, places)})`, n: places };
    },
  };
}

/**
 * A count with thousands separators, as `toLocaleString("en-US")` writes it (`10,000`), without
 * the ICU number formatter, whose first use costs a process tens of milliseconds.
 */
export function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}

/** `a and b`, `a, b and c`, `a, b and 9,998 more`. */
function list(names: readonly string[], total: number): string {
  if (total <= NAMED) return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  return `${names.slice(0, NAMED - 1).join(", ")} and ${thousands(total - NAMED + 1)} more`;
}

/**
 * The decoder's and the semantic checks' diagnostics with repeats folded: the same message (after
 * its path) at the same position, from a template many hosts use (`notification: "oncal"` in a
 * pattern constraint), becomes one diagnostic that counts them, like the schema stage's.
 * Diagnostics without a position of their own (line 1, column 1) are left as they are.
 */
export function foldRepeats(diagnostics: readonly ConfigDiagnostic[]): ConfigDiagnostic[] {
  const groups = new Map<string, Instances>();
  const out: ConfigDiagnostic[] = [];
  for (const d of diagnostics) {
    const split =
      d.instances === undefined && !(d.line === 1 && d.column === 1) ? splitPath(d.message) : undefined;
    if (split === undefined) {
      out.push(d);
      continue;
    }
    const key = `${d.file}:${d.line}:${d.column}:${split.detail}`;
    let g = groups.get(key);
    if (g === undefined) {
      g = createInstances(out.length);
      groups.set(key, g);
      out.push(d);
    }
    g.add(split.path);
  }
  for (const g of groups.values()) {
    const c = g.counted();
    const d = out[g.index] as ConfigDiagnostic;
    if (c !== undefined) out[g.index] = { ...d, message: `${d.message} ${c.text}`, instances: c.n };
  }
  return out;
}

const SEGMENT = /[A-Za-z0-9_$#]+/y;

/** A message `path: detail` as formatPath wrote its path, split; undefined for any other message. */
export function splitPath(message: string): { path: string[]; detail: string } | undefined {
  const path: string[] = [];
  let i = 0;
  for (;;) {
    if (message[i] === '"') {
      let j = i + 1;
      while (j < message.length && message[j] !== '"') j += message[j] === "\\" ? 2 : 1;
      if (j >= message.length) return undefined;
      try {
        path.push(String(JSON.parse(message.slice(i, j + 1))));
      } catch {
        return undefined;
      }
      i = j + 1;
    } else {
      SEGMENT.lastIndex = i;
      const m = SEGMENT.exec(message);
      if (m === null) return undefined;
      path.push(m[0]);
      i += m[0].length;
    }
    if (message[i] === ".") {
      i++;
      continue;
    }
    if (message.startsWith(": ", i)) return { path, detail: message.slice(i + 2) };
    return undefined;
  }
}
