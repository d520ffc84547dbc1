import { CHECK_TYPES, CONTACT_TYPES, SINK_TYPES } from "../model/config.js";
import { isObj } from "./decode-reader.js";
import type { DocPath } from "./locate.js";

/** `-config-profile`: `demo` narrows what the loader accepts (docs/configuration.md). */
export type ConfigProfile = "demo";

/** The three discriminated unions of the schema. */
export type UnionKind = "check" | "contact" | "sink";

const ALL_TYPES: Readonly<Record<UnionKind, readonly string[]>> = {
  check: CHECK_TYPES,
  contact: CONTACT_TYPES,
  sink: SINK_TYPES,
};

/**
 * What the demo profile refuses, and why: each of these runs a process on the Lookout host or loads
 * or writes a local file chosen by whoever edits the config.
 */
export const DEMO_REFUSED: Readonly<Record<UnionKind, readonly string[]>> = {
  check: ["command", "legacy", "wasm"],
  contact: ["command"],
  sink: ["exec", "file"],
};

/** The types a profile allows for one union, in schema order. */
export function allowedTypes(kind: UnionKind, profile: ConfigProfile | undefined): readonly string[] {
  const all = ALL_TYPES[kind];
  return profile === "demo" ? all.filter((t) => !DEMO_REFUSED[kind].includes(t)) : all;
}

/**
 * The one message for a `type` the union does not accept: it names the allowed types so a typo is
 * a one-line fix.
 */
export function unknownTypeMessage(
  kind: UnionKind,
  found: string | undefined,
  profile: ConfigProfile | undefined,
): string {
  const allowed = `allowed types: ${allowedTypes(kind, profile).join(", ")}`;
  if (found === undefined) return `missing ${kind} type; ${allowed}`;
  if (profile === "demo" && ALL_TYPES[kind].includes(found)) {
    return `${kind} type ${JSON.stringify(found)} is not supported under -config-profile demo; ${allowed}`;
  }
  return `unknown ${kind} type ${JSON.stringify(found)}; ${allowed}`;
}

/**
 * A problem found by checkTypes: where to report it, and which engine errors it explains (so they
 * are not reported again): every error under `path`, or with `exact`, only errors at `path` itself
 * and at `also`.
 */
export interface RefusedUnion {
  readonly path: DocPath;
  readonly reportAt: DocPath;
  readonly message: string;
  readonly exact?: boolean;
  readonly also?: readonly DocPath[];
}

/** Calls `visit` for every check, contact and sink object of a document, with its path. */
export function forEachUnion(
  data: unknown,
  visit: (kind: UnionKind, value: unknown, path: DocPath) => void,
): void {
  if (!isObj(data)) return;
  const hosts = data.hosts;
  if (isObj(hosts)) {
    for (const h in hosts) {
      const host = hosts[h];
      if (!isObj(host)) continue;
      if (host.check !== undefined) visit("check", host.check, ["hosts", h, "check"]);
      const services = host.services;
      if (!isObj(services)) continue;
      for (const s in services) {
        const svc = services[s];
        if (isObj(svc) && svc.check !== undefined)
          visit("check", svc.check, ["hosts", h, "services", s, "check"]);
      }
    }
  }
  for (const [kind, key] of [
    ["contact", "contacts"],
    ["sink", "sinks"],
  ] as const) {
    const m = data[key];
    if (!isObj(m)) continue;
    for (const name in m) visit(kind, m[name], [key, name]);
  }
}

/**
 * The two rules of the snmp check that CUE states as a disjunction and a comprehension, whose
 * engine errors ("incomplete value", "conflicting values") say little: exactly one of `community`
 * and `user`, and `expect` excluding `warn` and `crit`.
 */
function snmpChoices(check: Readonly<Record<string, unknown>>, path: DocPath): RefusedUnion[] {
  const out: RefusedUnion[] = [];
  const hasCommunity = check.community !== undefined;
  const hasUser = check.user !== undefined;
  if (hasCommunity === hasUser) {
    out.push({
      path,
      reportAt: path,
      exact: true,
      also: [
        [...path, "community"],
        [...path, "user"],
      ],
      message: `snmp check needs exactly one of "community" (v2c) or "user" (v3), found ${hasUser ? "both" : "neither"}`,
    });
  }
  const set = (k: string) => typeof check[k] === "string" && check[k] !== "";
  if (set("expect") && (set("warn") || set("crit"))) {
    const at = [...path, set("warn") ? "warn" : "crit"];
    out.push({
      path: at,
      reportAt: at,
      exact: true,
      also: [path, [...path, "warn"], [...path, "crit"], [...path, "expect"]],
      message: `"expect" is mutually exclusive with "warn" and "crit"`,
    });
  }
  return out;
}

/** Whether an engine error at `errorPath` is explained by one of the problems checkTypes found. */
export function explainedBy(refused: readonly RefusedUnion[], errorPath: DocPath): boolean {
  const same = (a: DocPath, b: DocPath) =>
    a.length === b.length && a.every((x, i) => String(x) === String(b[i]));
  for (const r of refused) {
    if (r.exact) {
      if (same(errorPath, r.path) || (r.also ?? []).some((p) => same(errorPath, p))) return true;
    } else if (
      errorPath.length >= r.path.length &&
      r.path.every((x, i) => String(x) === String(errorPath[i]))
    ) {
      return true;
    }
  }
  return false;
}

/**
 * Finds every check, contact and sink whose `type` is unknown (or refused by the profile), plus,
 * under the demo profile, a non-empty `commands` block and `file:` URLs. Works on a user's raw
 * document as well as on schema-checked data.
 */
export function checkTypes(data: unknown, profile: ConfigProfile | undefined): RefusedUnion[] {
  const out: RefusedUnion[] = [];
  forEachUnion(data, (kind, value, path) => {
    if (!isObj(value)) return;
    const t = value.type;
    const allowed = allowedTypes(kind, profile);
    if (typeof t === "string" && allowed.includes(t)) {
      if (t === "snmp") out.push(...snmpChoices(value, path));
      if (profile === "demo" && kind === "check" && value.ca_file !== undefined) {
        out.push({
          path: [...path, "ca_file"],
          reportAt: [...path, "ca_file"],
          message: `"ca_file" is not supported under -config-profile demo (it reads a local file)`,
        });
      }
      if (profile === "demo" && typeof value.url === "string" && /^file:/i.test(value.url)) {
        out.push({
          path: [...path, "url"],
          reportAt: [...path, "url"],
          message: `"file:" URLs are not supported under -config-profile demo (they read or write local files)`,
        });
      }
      return;
    }
    out.push({
      path,
      reportAt: t === undefined ? path : [...path, "type"],
      message: unknownTypeMessage(
        kind,
        t === undefined ? undefined : typeof t === "string" ? t : String(t),
        profile,
      ),
    });
  });
  if (profile === "demo" && isObj(data) && isObj(data.commands) && Object.keys(data.commands).length > 0) {
    out.push({
      path: ["commands"],
      reportAt: ["commands"],
      message:
        "a non-empty commands block is not supported under -config-profile demo (commands run processes on the Lookout host)",
    });
  }
  return out;
}
