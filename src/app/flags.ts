/**
 * Go-style command-line flags, as Prometheus and Icinga users type them: `-name value`,
 * `-name=value`, `--name=value`; bool flags are `-name` or `-name=false` (never `-name false`).
 * Parsing stops at the first non-flag argument or at `--`.
 */

export interface FlagSpec {
  readonly name: string;
  readonly kind: "string" | "bool";
  readonly usage: string;
  readonly default: string | boolean;
  /** An environment variable read when the flag is not given (for secrets kept out of `ps`). */
  readonly env?: string;
}

export type FlagValues = Record<string, string | boolean>;

export type FlagParse =
  | { readonly ok: true; readonly values: FlagValues; readonly rest: readonly string[] }
  | { readonly ok: false; readonly help: boolean; readonly error: string };

/** Parses argv (without the program name) against the specs. */
export function parseFlags(
  specs: readonly FlagSpec[],
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): FlagParse {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const values: FlagValues = {};
  const given = new Set<string>();
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      i++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    const body = arg.startsWith("--") ? arg.slice(2) : arg.slice(1);
    if (body === "" || body.startsWith("-") || body.startsWith("=")) {
      return { ok: false, help: false, error: `bad flag syntax: ${arg}` };
    }
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    const inline = eq < 0 ? undefined : body.slice(eq + 1);
    if (name === "h" || name === "help") return { ok: false, help: true, error: "" };
    const spec = byName.get(name);
    if (spec === undefined)
      return { ok: false, help: false, error: `flag provided but not defined: -${name}` };
    if (spec.kind === "bool") {
      if (inline === undefined) values[name] = true;
      else if (/^(1|t|true|TRUE|True)$/.test(inline)) values[name] = true;
      else if (/^(0|f|false|FALSE|False)$/.test(inline)) values[name] = false;
      else return { ok: false, help: false, error: `invalid boolean value "${inline}" for -${name}` };
    } else if (inline !== undefined) {
      values[name] = inline;
    } else {
      const next = argv[i + 1];
      if (next === undefined) return { ok: false, help: false, error: `flag needs an argument: -${name}` };
      values[name] = next;
      i++;
    }
    given.add(name);
  }
  for (const s of specs) {
    if (given.has(s.name)) continue;
    const fromEnv = s.env === undefined ? undefined : env[s.env];
    values[s.name] = fromEnv !== undefined && fromEnv !== "" && s.kind === "string" ? fromEnv : s.default;
  }
  return { ok: true, values, rest: argv.slice(i) };
}

/** Usage text in the layout of Go's flag package. */
export function formatUsage(program: string, specs: readonly FlagSpec[], preamble = ""): string {
  const lines = [`Usage of ${program}:`];
  if (preamble !== "") lines.push(preamble);
  for (const s of [...specs].sort((a, b) => a.name.localeCompare(b.name))) {
    lines.push(`  -${s.name}${s.kind === "string" ? " string" : ""}`);
    let usage = `    \t${s.usage}`;
    if (s.env !== undefined) usage += ` (env ${s.env})`;
    if (s.kind === "string" && s.default !== "") usage += ` (default ${JSON.stringify(s.default)})`;
    lines.push(usage);
  }
  return `${lines.join("\n")}\n`;
}
