/**
 * The `lookout cue` subcommands, a small `cue`-compatible front end to the engine:
 *
 *   lookout cue export [-e PATH] FILE…   prints the unified value (or the value at PATH, e.g.
 *                                       `hosts.web1` or `hosts."web-1"`) as JSON, like `cue export`
 *   lookout cue vet [-c] FILE…    silent when valid; `-c` also requires every regular field concrete
 *
 * Errors are printed the way `cue` prints them (`path: message:` then `    ./file:line:col`) and the
 * exit code is 1; usage errors exit 2. All files are evaluated together as one package instance.
 */

import { readFile } from "node:fs/promises";
import { compile, formatErrors } from "./index.js";
import { splitPath } from "./syntax/path.js";

/** Where the CLI writes. */
export interface CliIO {
  readonly stdout: { write(s: string): unknown };
  readonly stderr: { write(s: string): unknown };
}

const usage = `usage: lookout cue <command> [flags] FILE...

commands:
  export [-e PATH] FILE...   print the evaluated value (or the value at PATH) as JSON
  vet [-c] FILE...   validate; -c (--concrete) also requires all regular fields to be concrete
`;

/** Runs `lookout cue …` (args after `cue`); resolves to the process exit code. */
export async function runCueCli(args: readonly string[], io: CliIO): Promise<number> {
  const [command, ...rest] = args;
  if (command === undefined || command === "help" || command === "-h" || command === "--help") {
    (command === undefined ? io.stderr : io.stdout).write(usage);
    return command === undefined ? 2 : 0;
  }
  if (command !== "export" && command !== "vet") {
    io.stderr.write(`lookout cue: unknown command "${command}"\n${usage}`);
    return 2;
  }
  let concrete = false;
  let at: string[] | undefined;
  const paths: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] ?? "";
    if (command === "export" && (a === "-e" || a === "--expression")) {
      const p = rest[++i];
      if (p === undefined) {
        io.stderr.write(`lookout cue export: ${a} needs a path\n${usage}`);
        return 2;
      }
      at = splitPath(p);
    } else if (command === "vet" && (a === "-c" || a === "--concrete" || a === "-c=true")) concrete = true;
    else if (a === "-c=false") concrete = false;
    else if (a.startsWith("-") && a !== "-") {
      io.stderr.write(`lookout cue ${command}: unknown flag ${a}\n${usage}`);
      return 2;
    } else paths.push(a);
  }
  if (paths.length === 0) {
    io.stderr.write(`lookout cue ${command}: no input files\n${usage}`);
    return 2;
  }
  const files: { name: string; text: string }[] = [];
  for (const p of paths) {
    try {
      files.push({ name: p, text: await readFile(p, "utf8") });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      io.stderr.write(`cannot read ${p}: ${code === "ENOENT" ? "no such file" : (e as Error).message}\n`);
      return 1;
    }
  }
  const value = compile(files);
  switch (command) {
    case "export": {
      if (value.errors.length > 0) {
        io.stderr.write(formatErrors(value.errors));
        return 1;
      }
      const target = at === undefined ? value : value.lookup(at);
      if (target === undefined) {
        io.stderr.write(`reference "${at?.join(".")}" not found\n`);
        return 1;
      }
      const out = target.toJSON(2);
      if (!out.ok) {
        io.stderr.write(formatErrors(out.errors));
        return 1;
      }
      io.stdout.write(`${out.text}\n`);
      return 0;
    }
    case "vet": {
      const errors = value.validate({ concrete });
      if (errors.length > 0) {
        io.stderr.write(formatErrors(errors));
        return 1;
      }
      return 0;
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}
