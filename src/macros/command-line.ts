import { type MacroResolver, parseTemplate } from "./expand.js";

/**
 * Turning a `#Command` line into something to execute, so that no macro value can change the
 * command's shape: with `shell: false` the line is split into words BEFORE expansion (a value with
 * spaces or quotes stays one argument); with `shell: true` values never appear in the script text at
 * all but travel as positional parameters of `/bin/sh -c script lookout v1 v2 …`, referenced as
 * `"${1}"`, so the shell never parses them.
 */

/** Thrown for a line that cannot be split (an unterminated quote, a trailing backslash). */
export class CommandLineError extends Error {
  override readonly name = "CommandLineError";
}

/** One word of a command line, still a macro template (`$$` for a literal dollar). */
export interface Word {
  readonly template: string;
  /** Whether any part of it was quoted; a quoted word survives expanding to "". */
  readonly quoted: boolean;
}

const BLANK = new Set([" ", "\t", "\n", "\r"]);

/**
 * Splits a line into words, POSIX-shell style but without any expansion: blanks separate words;
 * '…' is literal; "…" is literal except that \" \\ \$ \` are escapes; outside quotes a backslash
 * makes the next character literal. An escaped `$` (\$) is a literal dollar, never a macro start.
 */
export function splitWords(line: string): Word[] {
  const words: Word[] = [];
  let cur = "";
  let quoted = false;
  let inWord = false;
  const lit = (c: string): string => (c === "$" ? "$$" : c);
  let i = 0;
  while (i < line.length) {
    const c = line[i] as string;
    if (BLANK.has(c)) {
      if (inWord) words.push({ template: cur, quoted });
      cur = "";
      quoted = false;
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (c === "\\") {
      if (i + 1 >= line.length) throw new CommandLineError("command line ends with a backslash");
      cur += lit(line[i + 1] as string);
      i += 2;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new CommandLineError("command line has an unterminated single quote");
      // Inside single quotes the text is literal, but macros are still expanded as in Nagios.
      cur += line.slice(i + 1, end);
      quoted = true;
      i = end + 1;
    } else if (c === '"') {
      quoted = true;
      i++;
      let closed = false;
      while (i < line.length) {
        const d = line[i] as string;
        if (d === '"') {
          closed = true;
          i++;
          break;
        }
        if (d === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) {
          cur += lit(line[i + 1] as string);
          i += 2;
          continue;
        }
        cur += d;
        i++;
      }
      if (!closed) throw new CommandLineError("command line has an unterminated double quote");
    } else {
      cur += c;
      i++;
    }
  }
  if (inWord) words.push({ template: cur, quoted });
  return words;
}

function expandWord(template: string, resolve: MacroResolver): string {
  let out = "";
  for (const p of parseTemplate(template)) out += "text" in p ? p.text : (resolve(p.macro) ?? `$${p.macro}$`);
  return out;
}

/**
 * The argv for a `shell: false` command: split first, then expand each word. A word made only of
 * unquoted macros that expand to "" is dropped (an unset optional `$ARG2$` adds no empty argument);
 * a quoted word is kept even when empty. Throws CommandLineError for an unsplittable line or an
 * empty result.
 */
export function buildArgv(line: string, resolve: MacroResolver): string[] {
  const argv: string[] = [];
  for (const w of splitWords(line)) {
    const v = expandWord(w.template, resolve);
    if (v === "" && !w.quoted) continue;
    argv.push(v);
  }
  if (argv.length === 0 || argv[0] === "")
    throw new CommandLineError("command line is empty after expansion");
  return argv;
}

/** A `shell: true` command: the script for `/bin/sh -c` and the values behind `${1}`, `${2}` … */
export interface ShellCommand {
  readonly script: string;
  readonly params: string[];
}

type Quote = "none" | "single" | "double";

/**
 * One level of shell quoting context. `$(…)` and backticks open a fresh context even inside double
 * quotes, so the scanner keeps a stack: `parens` counts open `(` inside a `$(` level, `backtick`
 * marks a level opened by a backtick.
 */
interface Frame {
  q: Quote;
  parens: number;
  readonly backtick: boolean;
  readonly subst: boolean;
}

/**
 * Builds the `/bin/sh -c` script for a `shell: true` line. The line is scanned with the shell's
 * quoting rules (quotes, backslashes, `$(…)` and backticks nesting) so each macro reference is
 * replaced by a parameter reference that is correct where it stands: `"${n}"` outside quotes, `${n}`
 * inside double quotes, `'"${n}"'` inside single quotes. The values go to `params`; the same macro
 * used twice shares one parameter. Even where the scan misjudged exotic syntax (a heredoc, `case`
 * patterns), a value is only ever reached through parameter expansion, which the shell never parses
 * as code. `$$` stays a literal `$` for the shell, and `\$` is never a macro start.
 */
export function buildShellCommand(line: string, resolve: MacroResolver): ShellCommand {
  const params: string[] = [];
  const index = new Map<string, number>();
  let script = "";
  const stack: Frame[] = [{ q: "none", parens: 0, backtick: false, subst: false }];
  const top = (): Frame => stack[stack.length - 1] as Frame;
  const ref = (name: string): string | undefined => {
    let n = index.get(name);
    if (n === undefined) {
      const v = resolve(name);
      if (v === undefined) return undefined;
      params.push(v);
      n = params.length;
      index.set(name, n);
    }
    const q = top().q;
    switch (q) {
      case "none":
        return `"\${${n}}"`;
      case "double":
        return `\${${n}}`;
      case "single":
        return `'"\${${n}}"'`;
      default: {
        const never: never = q;
        return never;
      }
    }
  };
  // An unknown macro stays as written, as text the shell does not expand.
  const literal = (text: string): string => {
    const q = top().q;
    switch (q) {
      case "none":
        return `'${text}'`;
      case "double":
        return text.replaceAll("$", "\\$");
      case "single":
        return text;
      default: {
        const never: never = q;
        return never;
      }
    }
  };
  let i = 0;
  while (i < line.length) {
    const c = line[i] as string;
    const f = top();
    if (c === "$" && f.q !== "single" && line[i + 1] === "(") {
      stack.push({ q: "none", parens: 1, backtick: false, subst: true });
      script += "$(";
      i += 2;
      continue;
    }
    if (c === "$") {
      if (line[i + 1] === "$") {
        script += "$";
        i += 2;
        continue;
      }
      const close = line.indexOf("$", i + 1);
      const name = close < 0 ? "" : line.slice(i + 1, close);
      if (close > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        script += ref(name) ?? literal(`$${name}$`);
        i = close + 1;
        continue;
      }
      script += c;
      i++;
      continue;
    }
    switch (f.q) {
      case "none":
        if (c === "\\") {
          // The escaped character is taken whole, so an escaped `$` never starts a macro.
          script += line.slice(i, i + 2);
          i += 2;
          continue;
        }
        if (c === "'") f.q = "single";
        else if (c === '"') f.q = "double";
        else if (c === "`" && f.backtick) stack.pop();
        else if (c === "`") stack.push({ q: "none", parens: 0, backtick: true, subst: true });
        else if (c === "(" && f.subst && !f.backtick) f.parens++;
        else if (c === ")" && f.subst && !f.backtick && --f.parens === 0) stack.pop();
        break;
      case "single":
        if (c === "'") f.q = "none";
        break;
      case "double":
        if (c === "\\" && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1] as string)) {
          script += line.slice(i, i + 2);
          i += 2;
          continue;
        }
        if (c === '"') f.q = "none";
        else if (c === "`") stack.push({ q: "none", parens: 0, backtick: true, subst: true });
        break;
      default: {
        const never: never = f.q;
        return never;
      }
    }
    script += c;
    i++;
  }
  if (stack.length > 1) throw new CommandLineError("command line has an unterminated $( or backtick");
  if (top().q !== "none") throw new CommandLineError(`command line has an unterminated ${top().q} quote`);
  return { script, params };
}

/**
 * Why a `#Command` line cannot run, or undefined when it can: for the config loader, so that an
 * unterminated quote is a load-time diagnostic rather than an UNKNOWN at run time.
 */
export function commandLineProblem(line: string, shell: boolean): string | undefined {
  try {
    if (shell) buildShellCommand(line, () => "");
    else if (splitWords(line).length === 0) return "command line is empty";
    return undefined;
  } catch (e) {
    if (e instanceof CommandLineError) return e.message;
    throw e;
  }
}
