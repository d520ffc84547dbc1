/**
 * Label selectors, Kubernetes-style: `env=prod, tier in (web,db), !deprecated`. Views, sinks,
 * `ListStatus` and selector targets of commands all use this one grammar (docs/selectors.md).
 *
 * A selector is a comma-separated conjunction of requirements; the empty selector matches
 * everything. Keys and values must be spellable as labels (the `#Labels` patterns below), so a
 * selector that could never match because of a typo in a key is rejected when it is parsed.
 */
import type { Labels } from "./config.js";

/** `#Labels` key pattern; the CUE schema holds the same regex, and a test pins the two. */
export const LABEL_KEY_PATTERN = /^[a-z][a-z0-9_.-]*$/;
/** `#Labels` value pattern; pinned against the CUE schema like LABEL_KEY_PATTERN. */
export const LABEL_VALUE_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_.:/-]*$/;

/** A parsed selector. `matches` is cheap: it is called once per object per evaluation. */
export interface Selector {
  /** The text the selector was parsed from, unchanged. */
  readonly source: string;
  matches(labels: Readonly<Record<string, string>>): boolean;
}

export type ParseSelectorResult =
  | { readonly ok: true; readonly selector: Selector }
  | { readonly ok: false; readonly message: string /** 1-based, into the text. */; readonly column: number };

type Requirement = (labels: Readonly<Record<string, string>>) => boolean;

class SelectorSyntaxError extends Error {
  override readonly name = "SelectorSyntaxError";
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Characters a key or value token may contain (a superset; the patterns decide validity). */
const WORD_CHAR = /[A-Za-z0-9_.:/-]/;

/**
 * Parses a selector. Never throws. On failure, `column` points at the offending character (1-based)
 * and `message` says what was expected there.
 */
export function parseSelector(text: string): ParseSelectorResult {
  try {
    const requirements = new Parser(text).parse();
    return { ok: true, selector: compile(text, requirements) };
  } catch (e) {
    if (e instanceof SelectorSyntaxError) return { ok: false, message: e.message, column: e.offset + 1 };
    throw e;
  }
}

/**
 * The labels a selector sees for an object: a host's own labels, or for a service its host's labels
 * overlaid by the service's labels (the service wins on a shared key).
 */
export function effectiveLabels(
  host: { readonly labels: Labels },
  service?: { readonly labels: Labels },
): Labels {
  if (service === undefined) return host.labels;
  let serviceHasKeys = false;
  for (const _ in service.labels) {
    serviceHasKeys = true;
    break;
  }
  if (!serviceHasKeys) return host.labels;
  return { ...host.labels, ...service.labels };
}

function compile(source: string, requirements: readonly Requirement[]): Selector {
  const n = requirements.length;
  return Object.freeze({
    source,
    matches(labels: Readonly<Record<string, string>>): boolean {
      for (let i = 0; i < n; i++) if (!(requirements[i] as Requirement)(labels)) return false;
      return true;
    },
  });
}

const has = (labels: Readonly<Record<string, string>>, key: string): boolean => Object.hasOwn(labels, key);

class Parser {
  #pos = 0;
  constructor(private readonly text: string) {}

  parse(): Requirement[] {
    const out: Requirement[] = [];
    this.#skipSpace();
    if (this.#pos === this.text.length) return out;
    for (;;) {
      out.push(this.#requirement());
      this.#skipSpace();
      if (this.#pos === this.text.length) return out;
      if (this.text[this.#pos] !== ",") this.#fail(`expected "," or end of selector`);
      this.#pos++;
      this.#skipSpace();
    }
  }

  #requirement(): Requirement {
    if (this.text[this.#pos] === "!") {
      this.#pos++;
      this.#skipSpace();
      const key = this.#key();
      return (l) => !has(l, key);
    }
    const key = this.#key();
    this.#skipSpace();
    const c = this.text[this.#pos];
    if (c === undefined || c === ",") return (l) => has(l, key);
    if (c === "=" || c === "!") {
      let op: "=" | "!=";
      if (c === "!") {
        if (this.text[this.#pos + 1] !== "=") this.#fail(`expected "!=" after key "${key}"`);
        this.#pos += 2;
        op = "!=";
      } else {
        this.#pos += this.text[this.#pos + 1] === "=" ? 2 : 1;
        op = "=";
      }
      this.#skipSpace();
      const value = this.#value();
      return op === "=" ? (l) => has(l, key) && l[key] === value : (l) => !has(l, key) || l[key] !== value;
    }
    const wordStart = this.#pos;
    const word = this.#word();
    if (word === "in" || word === "notin") {
      const values = this.#valueSet();
      return word === "in"
        ? (l) => has(l, key) && values.has(l[key] as string)
        : (l) => !has(l, key) || !values.has(l[key] as string);
    }
    this.#pos = wordStart;
    return this.#fail(`expected one of "=", "==", "!=", "in", "notin", "," after key "${key}"`);
  }

  #valueSet(): ReadonlySet<string> {
    this.#skipSpace();
    if (this.text[this.#pos] !== "(") this.#fail(`expected "(" to open the value list`);
    this.#pos++;
    const values = new Set<string>();
    this.#skipSpace();
    if (this.text[this.#pos] === ")") this.#fail("expected at least one value in the list");
    for (;;) {
      this.#skipSpace();
      values.add(this.#value());
      this.#skipSpace();
      const c = this.text[this.#pos];
      if (c === ")") {
        this.#pos++;
        return values;
      }
      if (c !== ",") this.#fail(`expected "," or ")" in the value list`);
      this.#pos++;
    }
  }

  #key(): string {
    const start = this.#pos;
    const key = this.#word();
    if (key === "") this.#fail("expected a label key");
    if (!LABEL_KEY_PATTERN.test(key)) {
      this.#pos = start;
      this.#fail(`invalid label key "${key}": keys match ${LABEL_KEY_PATTERN.source}`);
    }
    return key;
  }

  #value(): string {
    const start = this.#pos;
    const value = this.#word();
    if (value === "") this.#fail("expected a label value");
    if (!LABEL_VALUE_PATTERN.test(value)) {
      this.#pos = start;
      this.#fail(`invalid label value "${value}": values match ${LABEL_VALUE_PATTERN.source}`);
    }
    return value;
  }

  #word(): string {
    const start = this.#pos;
    while (this.#pos < this.text.length && WORD_CHAR.test(this.text[this.#pos] as string)) this.#pos++;
    return this.text.slice(start, this.#pos);
  }

  #skipSpace(): void {
    while (this.#pos < this.text.length && /\s/.test(this.text[this.#pos] as string)) this.#pos++;
  }

  #fail(message: string): never {
    throw new SelectorSyntaxError(message, this.#pos);
  }
}
