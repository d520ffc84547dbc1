import { readFileSync } from "node:fs";
import type { NatsAuth } from "../zones/index.js";
import type { FlagSpec, FlagValues } from "./flags.js";

/**
 * The flags that say how to authenticate to NATS, for the server and `lookout worker` alike
 * (docs/zones.md, Securing NATS). No flag takes a secret itself (it would show in `ps`): the
 * password comes from a file or LOOKOUT_NATS_PASSWORD, the creds file is named by path.
 */
export const NATS_AUTH_FLAGS: readonly FlagSpec[] = [
  {
    name: "nats-creds",
    kind: "string",
    default: "",
    usage: "NATS credentials file (user JWT and nkey seed, as nsc writes it)",
  },
  {
    name: "nats-user",
    kind: "string",
    default: "",
    env: "LOOKOUT_NATS_USER",
    usage: "NATS user; the password comes from LOOKOUT_NATS_PASSWORD or -nats-password-file",
  },
  { name: "nats-password-file", kind: "string", default: "", usage: "file holding the NATS password" },
  {
    name: "nats-tls-ca",
    kind: "string",
    default: "",
    usage: "PEM file of the CA(s) that signed the NATS servers' certificates",
  },
  {
    name: "nats-tls-cert",
    kind: "string",
    default: "",
    usage: "PEM client certificate for NATS (mutual TLS; with -nats-tls-key)",
  },
  { name: "nats-tls-key", kind: "string", default: "", usage: "PEM key of -nats-tls-cert" },
];

/** The reason a file cannot be read, without its content: its errno code. */
function unreadable(path: string): string | undefined {
  try {
    readFileSync(path);
    return undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code ?? "cannot read";
  }
}

/**
 * Decodes the NATS auth flags; reads the password (file, else `env.LOOKOUT_NATS_PASSWORD`) and
 * checks that every named file can be read, so a mistake is a start-up error, not a reconnect loop.
 */
export function decodeNatsAuth(
  v: FlagValues,
  env: Readonly<Record<string, string | undefined>>,
): { ok: true; auth: NatsAuth } | { ok: false; error: string } {
  const s = (k: string) => String(v[k] ?? "");
  const creds = s("nats-creds");
  const user = s("nats-user");
  const passwordFile = s("nats-password-file");
  let password = env.LOOKOUT_NATS_PASSWORD ?? "";
  if (creds !== "" && user !== "")
    return { ok: false, error: "-nats-creds and -nats-user exclude each other: a creds file names its user" };
  if (passwordFile !== "") {
    try {
      password = readFileSync(passwordFile, "utf8").replace(/\r?\n$/, "");
    } catch (e) {
      return {
        ok: false,
        error: `-nats-password-file: ${(e as NodeJS.ErrnoException).code ?? "cannot read"}`,
      };
    }
  }
  if (user === "" && (passwordFile !== "" || password !== ""))
    return {
      ok: false,
      error: "a NATS password (-nats-password-file or LOOKOUT_NATS_PASSWORD) needs -nats-user",
    };
  if (creds !== "") {
    const problem = unreadable(creds);
    if (problem !== undefined) return { ok: false, error: `-nats-creds ${creds}: ${problem}` };
    const text = readFileSync(creds, "utf8");
    if (!/-----BEGIN NATS USER JWT-----/.test(text) || !/-----BEGIN USER NKEY SEED-----/.test(text))
      return {
        ok: false,
        error: `-nats-creds ${creds}: not a NATS credentials file (user JWT and nkey seed)`,
      };
  }
  const ca = s("nats-tls-ca");
  const cert = s("nats-tls-cert");
  const key = s("nats-tls-key");
  if ((cert === "") !== (key === ""))
    return { ok: false, error: "-nats-tls-cert and -nats-tls-key go together" };
  for (const [flag, path] of [
    ["nats-tls-ca", ca],
    ["nats-tls-cert", cert],
    ["nats-tls-key", key],
  ] as const) {
    if (path === "") continue;
    const problem = unreadable(path);
    if (problem !== undefined) return { ok: false, error: `-${flag} ${path}: ${problem}` };
  }
  const tls =
    ca === "" && cert === ""
      ? undefined
      : {
          ...(ca === "" ? {} : { caFile: ca }),
          ...(cert === "" ? {} : { certFile: cert, keyFile: key }),
        };
  return {
    ok: true,
    auth: {
      ...(creds === "" ? {} : { credsFile: creds }),
      ...(user === "" ? {} : { user, password }),
      ...(tls === undefined ? {} : { tls }),
    },
  };
}
