import type { Interceptor, Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { FlagSpec, FlagValues } from "./flags.js";

/**
 * The flags of a subcommand that talks to a running server (`lookout status`): where it is and the
 * bearer token it wants. The token is best given in the environment, which `ps` does not show.
 */
export const SERVER_CLIENT_FLAGS: readonly FlagSpec[] = [
  {
    name: "server",
    kind: "string",
    default: "http://127.0.0.1:8080",
    env: "LOOKOUT_URL",
    usage: "the running server's URL",
  },
  {
    name: "token",
    kind: "string",
    default: "",
    env: "LOOKOUT_TOKEN",
    usage: "bearer token sent to the server (an -auth-config identity's or -api-token); empty: none",
  },
];

/**
 * A Connect (JSON over HTTP/1.1) transport to the server the flags name, sending the token as
 * `Authorization: Bearer`, or the reason the URL is refused. Only http and https URLs.
 */
export function serverTransport(
  values: FlagValues,
): { ok: true; transport: Transport } | { ok: false; error: string } {
  const raw = String(values.server);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: "invalid value for -server: want a URL such as http://127.0.0.1:8080" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, error: "invalid value for -server: want an http or https URL" };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, error: "invalid value for -server: give credentials with -token, not in the URL" };
  }
  const token = String(values.token);
  const auth: Interceptor = (next) => (req) => {
    if (token !== "") req.header.set("authorization", `Bearer ${token}`);
    return next(req);
  };
  return {
    ok: true,
    transport: createConnectTransport({
      baseUrl: url.toString().replace(/\/$/, ""),
      httpVersion: "1.1",
      interceptors: [auth],
    }),
  };
}
