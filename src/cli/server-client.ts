import type { DescService } from "@bufbuild/protobuf";
import { type Client, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { FlagSpec, FlagValues } from "../app/flags.js";

/**
 * The flags every subcommand that talks to a running server takes. The token's flag reads
 * LOOKOUT_TOKEN when not given: set it there, so that it stays out of `ps`.
 */
export const SERVER_CLIENT_FLAGS: readonly FlagSpec[] = [
  {
    name: "server",
    kind: "string",
    default: "http://127.0.0.1:8080",
    env: "LOOKOUT_SERVER",
    usage: "the running Lookout's base URL",
  },
  {
    name: "token",
    kind: "string",
    default: "",
    env: "LOOKOUT_TOKEN",
    usage: "bearer token of an identity of -auth-config (prefer the environment: flags show in ps)",
  },
];

/** Where a subcommand reaches the server: a base URL and, optionally, a bearer token. */
export interface ServerTarget {
  readonly baseUrl: string;
  readonly token: string;
}

/** The target of parsed SERVER_CLIENT_FLAGS, or an error for a URL that is not http(s). */
export function serverTarget(values: FlagValues): ServerTarget | { readonly error: string } {
  const raw = String(values.server);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { error: `invalid value "${raw}" for -server: want http://host:port` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { error: `invalid value "${raw}" for -server: want http://host:port` };
  }
  if (url.username !== "" || url.password !== "") {
    // Not echoed: the URL holds a credential.
    return {
      error: "invalid value for -server: give credentials with -token or LOOKOUT_TOKEN, not in the URL",
    };
  }
  return { baseUrl: raw.replace(/\/+$/, ""), token: String(values.token) };
}

/**
 * A Connect (JSON over HTTP/1.1) client of one service of the server, sending the token as
 * `Authorization: Bearer`. Never prints or returns the token.
 */
export function serverClient<S extends DescService>(service: S, target: ServerTarget): Client<S> {
  const bearer: Interceptor = (next) => (req) => {
    if (target.token !== "") req.header.set("authorization", `Bearer ${target.token}`);
    return next(req);
  };
  return createClient(
    service,
    createConnectTransport({
      baseUrl: target.baseUrl,
      httpVersion: "1.1",
      useBinaryFormat: false,
      interceptors: [bearer],
    }),
  );
}
