import type { CheckConfig, Config, SinkConfig } from "../model/config.js";
import { parseSelector } from "../model/selector.js";
import { parseSinkCursor } from "../model/sink-cursor.js";
import { type CaFileCache, checkOptionProblems } from "./check-options.js";
import type { ConfigDiagnostic } from "./diagnostic.js";
import { formatPath } from "./diagnostic.js";
import type { DocPath, Locator } from "./locate.js";

/**
 * The rules the schema cannot express, checked on the decoded Config: names that must refer to
 * another object (commands, notification policies, contacts, parent hosts), parent cycles, selector
 * syntax and notification windows. One diagnostic per problem, at the user's position of the
 * offending value. `skip` silences paths already reported otherwise (a check the profile refused).
 */
export function checkSemantics(
  config: Config,
  locator: Locator,
  skip: (path: DocPath) => boolean = () => false,
): ConfigDiagnostic[] {
  const out: ConfigDiagnostic[] = [];
  const report = (path: DocPath, message: string): void => {
    if (skip(path)) return;
    const at = locator.at(path);
    out.push({ message: `${formatPath(path)}: ${message}`, file: at.file, line: at.line, column: at.column });
  };
  // What each map defines, sorted once: a fleet may hold 100,000 references to one missing name.
  const defined = new Map<ReadonlyMap<string, unknown>, string>();
  const unknown = (
    what: string,
    name: string,
    known: ReadonlyMap<string, unknown>,
    plural = `${what}s`,
  ): string => {
    let shown = defined.get(known);
    if (shown === undefined) {
      const names = [...known.keys()].sort();
      shown = names.slice(0, 8).join(", ") + (names.length > 8 ? ", …" : "");
      defined.set(known, shown);
    }
    if (known.size === 0) return `unknown ${what} ${JSON.stringify(name)}; no ${plural} are defined`;
    return `unknown ${what} ${JSON.stringify(name)}; defined: ${shown}`;
  };
  // Each rule says what is wrong, if anything; its caller builds the path only then, because this
  // loop runs once per host and service.
  const commandProblem = (check: CheckConfig): string | undefined =>
    check.type === "command" && !config.commands.has(check.command)
      ? unknown("command", check.command, config.commands)
      : undefined;
  const policyProblem = (name: string): string | undefined =>
    name !== "" && !config.notifications.has(name)
      ? unknown("notification policy", name, config.notifications, "notification policies")
      : undefined;

  const caFiles: CaFileCache = new Map();
  const optionProblems = (check: CheckConfig, at: () => DocPath): void => {
    if (check.type !== "http" && check.type !== "tls") return;
    const path = at();
    for (const [p, message] of checkOptionProblems(check, caFiles, skip([...path, "ca_file"])))
      report([...path, ...p], message);
  };
  for (const [h, host] of config.hosts) {
    optionProblems(host.check, () => ["hosts", h, "check"]);
    let problem = commandProblem(host.check);
    if (problem !== undefined) report(["hosts", h, "check", "command"], problem);
    problem = policyProblem(host.notification);
    if (problem !== undefined) report(["hosts", h, "notification"], problem);
    const parents = host.parents;
    for (let i = 0; i < parents.length; i++) {
      const p = parents[i] as string;
      if (!config.hosts.has(p))
        report(["hosts", h, "parents", i], `unknown parent host ${JSON.stringify(p)}`);
    }
    for (const [s, svc] of host.services) {
      optionProblems(svc.check, () => ["hosts", h, "services", s, "check"]);
      problem = commandProblem(svc.check);
      if (problem !== undefined) report(["hosts", h, "services", s, "check", "command"], problem);
      problem = policyProblem(svc.notification);
      if (problem !== undefined) report(["hosts", h, "services", s, "notification"], problem);
    }
  }
  for (const cycle of parentCycles(config)) {
    const first = cycle[0] as string;
    const host = config.hosts.get(first);
    const i = host === undefined ? -1 : host.parents.indexOf(cycle[1] as string);
    report(["hosts", first, "parents", ...(i < 0 ? [] : [i])], `parent cycle: ${cycle.join(" -> ")}`);
  }

  for (const [c, contact] of config.contacts) {
    if (contact.type === "command" && !config.commands.has(contact.command)) {
      report(["contacts", c, "command"], unknown("command", contact.command, config.commands));
    }
  }

  for (const [p, policy] of config.notifications) {
    policy.levels.forEach((level, i) => {
      level.contacts.forEach((name, j) => {
        if (!config.contacts.has(name)) {
          report(["notifications", p, "levels", i, "contacts", j], unknown("contact", name, config.contacts));
        }
      });
    });
    policy.period.forEach((w, i) => {
      const path = ["notifications", p, "period", i];
      if (w.endMinute > 24 * 60) report([...path, "end"], `end ${JSON.stringify(w.end)} is past 24:00`);
      else if (w.endMinute <= w.startMinute) {
        report(
          [...path, "end"],
          `end ${JSON.stringify(w.end)} must be after start ${JSON.stringify(w.start)} (a window does not wrap past midnight; use two windows)`,
        );
      }
    });
  }

  const checkSelector = (text: string, path: DocPath): void => {
    const r = parseSelector(text);
    if (!r.ok)
      report(
        path,
        `invalid selector ${JSON.stringify(text)}: ${r.message} (at column ${r.column} of the selector)`,
      );
  };
  for (const [v, view] of config.views) checkSelector(view.selector, ["views", v, "selector"]);
  for (const [s, sink] of config.sinks) {
    checkSelector(sink.selector, ["sinks", s, "selector"]);
    for (const [path, message] of sinkProblems(sink)) report(["sinks", s, ...path], message);
  }
  return out;
}

/**
 * Every cycle in the parent graph, each once, as a host path that returns to its start
 * (`a -> b -> a`). Iterative, so a long parent chain cannot overflow the stack.
 */
export function parentCycles(config: Config): string[][] {
  const state = new Map<string, 1 | 2>(); // 1: on the current path, 2: done
  const cycles: string[][] = [];
  for (const root of config.hosts.keys()) {
    if (state.has(root)) continue;
    if (config.hosts.get(root)?.parents.length === 0) {
      state.set(root, 2); // a root of the parent graph is on no cycle
      continue;
    }
    const stack: { host: string; next: number }[] = [{ host: root, next: 0 }];
    const onPath: string[] = [root];
    state.set(root, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { host: string; next: number };
      const parents = config.hosts.get(top.host)?.parents ?? [];
      if (top.next >= parents.length) {
        state.set(top.host, 2);
        stack.pop();
        onPath.pop();
        continue;
      }
      const p = parents[top.next++] as string;
      if (!config.hosts.has(p)) continue;
      const s = state.get(p);
      if (s === 1) {
        cycles.push([...onPath.slice(onPath.indexOf(p)), p]);
      } else if (s === undefined) {
        state.set(p, 1);
        stack.push({ host: p, next: 0 });
        onPath.push(p);
      }
    }
  }
  return cycles;
}

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * What is wrong with a sink's URL, headers and cursor, as (path below the sink, message) pairs.
 * Messages never repeat a URL or a header value: either may hold a credential.
 */
export function sinkProblems(sink: SinkConfig): [DocPath, string][] {
  const out: [DocPath, string][] = [];
  if (sink.type === "remote_write" && sink.input === "events")
    out.push([["input"], `a remote_write sink carries metrics only; use "metrics"`]);
  if ("url" in sink && sink.url !== "") {
    const schemes = sink.type === "archive" ? ["http:", "https:", "file:"] : ["http:", "https:"];
    let u: URL | undefined;
    try {
      u = new URL(sink.url);
    } catch {
      out.push([["url"], `not a valid URL; want ${schemes.map((x) => `${x}//…`).join(" or ")}`]);
    }
    if (u !== undefined && !schemes.includes(u.protocol))
      out.push([
        ["url"],
        `URL scheme ${JSON.stringify(u.protocol)} is not supported; want ${schemes.join(", ")}`,
      ]);
    else if (u !== undefined && u.protocol === "file:" && (u.username !== "" || u.host !== ""))
      out.push([["url"], "a file:// URL names a local path (file:///dir)"]);
  }
  if ("headers" in sink) {
    for (const [name, value] of Object.entries(sink.headers)) {
      if (!HEADER_NAME.test(name))
        out.push([["headers", name], `invalid HTTP header name ${JSON.stringify(name)}`]);
      else if (/[\r\n\0]/.test(value))
        out.push([["headers", name], `header ${name}: a value may not hold a line break or NUL`]);
    }
  }
  if ("cursor" in sink) {
    const c = parseSinkCursor(sink.cursor);
    if ("error" in c) out.push([["cursor"], c.error]);
  }
  return out;
}
