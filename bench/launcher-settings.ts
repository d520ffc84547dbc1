/**
 * What bin/lookout.js, the launcher users run, sets at process start, read from its `#!/usr/bin/env
 * -S NAME=value ... node --flag ...` line: the benchmarks start their harness server with the same
 * settings, so their figures are those of the server as users start it.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface LauncherSettings {
  /** Environment variables the launcher's line sets (MALLOC_ARENA_MAX, ...). */
  readonly env: Readonly<Record<string, string>>;
  /** The node flags on the launcher's line. */
  readonly nodeArgs: readonly string[];
}

/** Parses a launcher's first line; throws if it is not `#!... env -S [NAME=value ...] node [flags ...]`. */
export function parseLauncherLine(line: string): LauncherSettings {
  const words = line.replace(/^#!/, "").trim().split(/\s+/);
  const s = words.indexOf("-S");
  const node = words.indexOf("node", s + 1);
  if (s < 0 || node < 0) throw new Error(`not an "env -S ... node" line: ${line}`);
  const env: Record<string, string> = {};
  for (const w of words.slice(s + 1, node)) {
    const eq = w.indexOf("=");
    if (eq <= 0) throw new Error(`not a NAME=value setting: ${w}`);
    env[w.slice(0, eq)] = w.slice(eq + 1);
  }
  return { env, nodeArgs: words.slice(node + 1) };
}

/** The settings of bin/lookout.js in this checkout. */
export function launcherSettings(): LauncherSettings {
  const path = fileURLToPath(new URL("../../bin/lookout.js", import.meta.url));
  return parseLauncherLine(readFileSync(path, "utf8").split("\n", 1)[0] ?? "");
}

/** How a server was started, for a benchmark's output. */
export function describeSettings(s: LauncherSettings): string {
  const parts = [...Object.entries(s.env).map(([k, v]) => `${k}=${v}`), ...s.nodeArgs];
  return parts.length === 0 ? "none" : parts.join(" ");
}
