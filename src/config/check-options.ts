import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { RE2JS } from "re2js";
import type { CheckConfig } from "../model/config.js";
import type { DocPath } from "./locate.js";

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Headers the http check sets itself: a document setting them would make a malformed request. */
const RESERVED_HEADERS = new Set(["content-length", "transfer-encoding", "connection"]);

/**
 * What a load has found out about each `ca_file` it was asked about (the problem, or undefined
 * when the file is a usable bundle): a fleet names one bundle in many checks, and it is read once.
 */
export type CaFileCache = Map<string, string | undefined>;

/**
 * What is wrong with the options of an `http` or `tls` check, as (path below the check, message)
 * pairs: header names and values, a body or body expectation the method cannot have, an
 * `expect_body_regex` that RE2 does not accept, an `sni` that is an IP literal, and a `ca_file`
 * that cannot be read or holds no certificate. Messages never repeat a header value. `skipCaFile`
 * says the `ca_file` was refused otherwise (the demo profile), so it is not read at all.
 */
export function checkOptionProblems(
  check: CheckConfig,
  caFiles: CaFileCache,
  skipCaFile = false,
): [DocPath, string][] {
  if (check.type !== "http" && check.type !== "tls") return [];
  const out: [DocPath, string][] = [];
  if (check.type === "http") {
    for (const [name, value] of Object.entries(check.headers ?? {})) {
      if (!HEADER_NAME.test(name))
        out.push([["headers", name], `invalid HTTP header name ${JSON.stringify(name)}`]);
      else if (RESERVED_HEADERS.has(name.toLowerCase()))
        out.push([["headers", name], `header ${name} is set by the check itself`]);
      else if (/[\r\n\0]/.test(value))
        out.push([["headers", name], `header ${name}: a value may not hold a line break or NUL`]);
    }
    const method = check.method ?? "GET";
    if (check.body !== undefined && (method === "GET" || method === "HEAD"))
      out.push([["body"], `a ${method} request has no body; use "POST", "PUT", "PATCH" or "DELETE"`]);
    if (method === "HEAD") {
      for (const [key, set] of [
        ["expect_body", check.expectBody],
        ["expect_body_regex", check.expectBodyRegex],
      ] as const) {
        if (set !== undefined) out.push([[key], "a HEAD response has no body to look into"]);
      }
    }
    if (check.expectBodyRegex !== undefined) {
      const problem = re2Problem(check.expectBodyRegex);
      if (problem !== undefined) out.push([["expect_body_regex"], problem]);
    }
  }
  if (check.sni !== undefined && isIP(check.sni) !== 0)
    out.push([["sni"], "sni is a host name; TLS does not send IP addresses as a server name"]);
  if (check.caFile !== undefined && !skipCaFile) {
    let problem: string | undefined;
    if (caFiles.has(check.caFile)) problem = caFiles.get(check.caFile);
    else {
      problem = caFileProblem(check.caFile);
      caFiles.set(check.caFile, problem);
    }
    if (problem !== undefined) out.push([["ca_file"], problem]);
  }
  return out;
}

/** Why RE2 refuses `pattern` (backreferences, lookaround, bad syntax), or undefined. */
export function re2Problem(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return `not an RE2 pattern: ${message.replace(/^error parsing regexp: /, "")} (RE2 has no backreferences or lookaround)`;
  }
}

/** Why the PEM bundle at `path` cannot serve as trusted roots, or undefined when it can. */
export function caFileProblem(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return `cannot read ca_file ${JSON.stringify(path)}${typeof code === "string" ? ` (${code})` : ""}`;
  }
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return `ca_file ${JSON.stringify(path)} holds no PEM certificate`;
  for (let i = 0; i < blocks.length; i++) {
    try {
      new X509Certificate(blocks[i] as string);
    } catch {
      return `ca_file ${JSON.stringify(path)}: certificate ${i + 1} is not a valid X.509 certificate`;
    }
  }
  return undefined;
}
