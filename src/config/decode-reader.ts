import type { ConfigDiagnostic } from "./diagnostic.js";
import { formatPath } from "./diagnostic.js";
import { parseDurationMs } from "./duration.js";
import type { Locator } from "./locate.js";
import type { Path } from "./path-step.js";
import { step, toDocPath } from "./path-step.js";

/** A plain object of the exported document. */
export type Obj = Readonly<Record<string, unknown>>;

/**
 * Typed reads from exported data, each reporting a diagnostic at the field's position instead of
 * throwing. After the schema has accepted a document these reads cannot fail; they are the decoder's
 * guard against a schema/decoder mismatch, and they let the decoder run on plain data in tests.
 * Callers read the field themselves (`r.str(o.zone, path, "zone")`): a property read at each call
 * site stays fast, where one shared `o[key]` inside the reader sees every key and every shape of
 * the document. `path` and `key` say where the value is, for reports only: paths are walk paths
 * (path-step.ts), turned into arrays only when something is reported. A duration text is parsed
 * once per load however many fields repeat it. Lists and string maps of the exported data are
 * frozen in place and become part of the Config: `data` must not be used by anyone else afterwards.
 */
export interface Reader {
  readonly diagnostics: ConfigDiagnostic[];
  report(path: Path, message: string): void;
  /** `v` (field `key` of the struct at `path`) as a struct; `{}` when absent (`required` reports that). */
  obj(v: unknown, path: Path, key: string, required?: boolean): Obj;
  str(v: unknown, path: Path, key: string, fallback?: string): string;
  /** A string that must be present and non-empty. */
  required(v: unknown, path: Path, key: string): string;
  optStr(v: unknown, path: Path, key: string): string | undefined;
  bool(v: unknown, path: Path, key: string, fallback: boolean): boolean;
  num(v: unknown, path: Path, key: string, fallback: number): number;
  int(v: unknown, path: Path, key: string, fallback: number): number;
  strList(v: unknown, path: Path, key: string): readonly string[];
  strMap(v: unknown, path: Path, key: string): Readonly<Record<string, string>>;
  /** A duration field in milliseconds; `fallback` is the schema default as text. */
  durationMs(v: unknown, path: Path, key: string, fallback?: string): number;
}

export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

const EMPTY: Obj = Object.freeze({});
const NO_STRINGS: readonly string[] = Object.freeze([]);

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a struct";
  if (typeof v === "string") return JSON.stringify(v);
  return String(v);
}

/** A reader that reports into its own diagnostics list, positioned by `locator`. */
export function createReader(locator: Locator): Reader {
  const diagnostics: ConfigDiagnostic[] = [];
  const report = (path: Path, message: string): void => {
    const doc = toDocPath(path);
    const at = locator.at(doc);
    diagnostics.push({
      message: `${formatPath(doc)}: ${message}`,
      file: at.file,
      line: at.line,
      column: at.column,
    });
  };
  const durations = new Map<string, number | undefined>();
  const missing = (path: Path, key: string): void =>
    report(step(path, key), `missing required field "${key}"`);
  const wrong = (path: Path, key: string, want: string, v: unknown): void =>
    report(step(path, key), `expected ${want}, found ${describe(v)}`);

  const reader: Reader = {
    diagnostics,
    report,
    obj(v, path, key, required = false) {
      if (v === undefined) {
        if (required) missing(path, key);
        return EMPTY;
      }
      if (isObj(v)) return v;
      wrong(path, key, "a struct", v);
      return EMPTY;
    },
    str(v, path, key, fallback = "") {
      if (typeof v === "string") return v;
      if (v !== undefined) wrong(path, key, "a string", v);
      return fallback;
    },
    required(v, path, key) {
      if (typeof v === "string") {
        if (v === "") report(step(path, key), `"${key}" must not be empty`);
        return v;
      }
      if (v === undefined) missing(path, key);
      else wrong(path, key, "a string", v);
      return "";
    },
    optStr(v, path, key) {
      if (v === undefined || typeof v === "string") return v;
      wrong(path, key, "a string", v);
      return undefined;
    },
    bool(v, path, key, fallback) {
      if (typeof v === "boolean") return v;
      if (v !== undefined) wrong(path, key, "a bool", v);
      return fallback;
    },
    num(v, path, key, fallback) {
      if (typeof v === "number") return v;
      if (typeof v === "bigint") return Number(v);
      if (v !== undefined) wrong(path, key, "a number", v);
      return fallback;
    },
    int(v, path, key, fallback) {
      if (typeof v === "number" && Number.isInteger(v)) return v;
      if (typeof v === "bigint") {
        report(step(path, key), `${v} is too large`);
        return fallback;
      }
      if (v !== undefined) wrong(path, key, "an int", v);
      return fallback;
    },
    strList(v, path, key) {
      if (v === undefined) return NO_STRINGS;
      if (!Array.isArray(v)) {
        wrong(path, key, "a list of strings", v);
        return NO_STRINGS;
      }
      for (let i = 0; i < v.length; i++) {
        if (typeof v[i] !== "string") {
          report(step(step(path, key), i), `expected a string, found ${describe(v[i])}`);
          return NO_STRINGS;
        }
      }
      // Exported data is fresh per load and owned by the decoder: frozen in place, not copied.
      return v.length === 0 ? NO_STRINGS : (Object.freeze(v) as readonly string[]);
    },
    strMap(v, path, key) {
      if (v === undefined) return EMPTY as Readonly<Record<string, string>>;
      if (!isObj(v)) {
        wrong(path, key, "a struct of strings", v);
        return EMPTY as Readonly<Record<string, string>>;
      }
      let empty = true;
      for (const k in v) {
        empty = false;
        if (typeof v[k] !== "string") {
          report(step(step(path, key), k), `expected a string, found ${describe(v[k])}`);
          return EMPTY as Readonly<Record<string, string>>;
        }
      }
      return empty
        ? (EMPTY as Readonly<Record<string, string>>)
        : (Object.freeze(v) as Readonly<Record<string, string>>);
    },
    durationMs(v, path, key, fallback) {
      const text = v === undefined ? fallback : v;
      if (text === undefined) {
        missing(path, key);
        return 0;
      }
      if (typeof text !== "string") {
        wrong(path, key, "a duration string", text);
        return 0;
      }
      // A fleet repeats a handful of duration texts across every check.
      let ms = durations.get(text);
      if (ms === undefined && !durations.has(text)) {
        ms = parseDurationMs(text);
        durations.set(text, ms);
      }
      if (ms === undefined) {
        report(
          step(path, key),
          `invalid duration ${JSON.stringify(text)} (use a Go duration such as "90s" or "1h30m")`,
        );
        return 0;
      }
      return ms;
    },
  };
  return reader;
}
