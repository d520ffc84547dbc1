import { readFile } from "node:fs/promises";
import type { Config } from "../model/config.js";
import { formatDiagnostic } from "./diagnostic.js";
import { loadConfig } from "./loader.js";
import type { ConfigProfile } from "./type-checks.js";

/** Where the command writes; process.stdout and process.stderr fit. */
export interface CliIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
}

const USAGE = "usage: lookout validate [-config-profile demo] FILE\n";

/** Parses `[-config-profile demo | -config-profile=demo] FILE` (one or two dashes). */
function parseArgs(args: readonly string[]): { file: string; profile?: ConfigProfile } | string {
  let profile: ConfigProfile | undefined;
  let file: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    const m = /^--?config-profile(?:=(.*))?$/.exec(a);
    if (m !== null) {
      const value = m[1] ?? args[++i];
      if (value !== "demo")
        return `unknown -config-profile ${JSON.stringify(value ?? "")} (the only profile is "demo")`;
      profile = value;
    } else if (a === "-h" || a === "-help" || a === "--help") {
      return "";
    } else if (a.startsWith("-") && a !== "-") {
      return `unknown flag ${a}`;
    } else if (file === undefined) {
      file = a;
    } else {
      return "exactly one FILE is expected";
    }
  }
  if (file === undefined) return "FILE is missing";
  return profile === undefined ? { file } : { file, profile };
}

/** The one-line summary printed for a valid document. */
export function summarize(file: string, config: Config): string {
  let services = 0;
  for (const h of config.hosts.values()) services += h.services.size;
  const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
  return (
    `${file}: ok: ${n(config.hosts.size, "host")}, ${n(services, "service")}, ` +
    `${n(config.contacts.size, "contact")}, ${n(config.notifications.size, "policy", "policies")}, ` +
    `${n(config.sinks.size, "sink")}, ${n(config.views.size, "view")}`
  );
}

/**
 * `lookout validate [-config-profile demo] FILE`: runs FILE through the same loader as startup and
 * SIGHUP. Prints `file:line:column: message` per problem (on stderr) and returns 1, or a one-line summary and
 * returns 0; 2 for a usage error.
 */
export async function runValidateCli(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseArgs(args);
  if (typeof parsed === "string") {
    io.stderr.write(parsed === "" ? USAGE : `lookout validate: ${parsed}\n${USAGE}`);
    return 2;
  }
  let text: string;
  try {
    text = await readFile(parsed.file, "utf8");
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
    io.stderr.write(`${parsed.file}: cannot read: ${reason}\n`);
    return 1;
  }
  const result = loadConfig({
    file: parsed.file,
    text,
    ...(parsed.profile ? { profile: parsed.profile } : {}),
  });
  if (!result.ok) {
    for (const d of result.diagnostics) io.stderr.write(`${formatDiagnostic(d)}\n`);
    return 1;
  }
  io.stdout.write(`${summarize(parsed.file, result.config)}\n`);
  return 0;
}
