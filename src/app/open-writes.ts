import { isIP } from "node:net";
import { createHostCheck } from "../api/index.js";
import { parseListen, type ServerOptions } from "./server-flags.js";

/**
 * Whether anyone who reaches -listen may write: CommandService is mounted (no -read-only) and
 * needs no credentials (no -api-token, no -auth-config). The reference's default, kept; it is what
 * makes a browser a threat (DNS rebinding drives the write API from any web page).
 */
export function writesOpen(o: Pick<ServerOptions, "readOnly" | "apiToken" | "authConfig">): boolean {
  return !o.readOnly && o.apiToken === "" && o.authConfig === "";
}

/**
 * The Host check the HTTP handler applies to every request (src/api/host-check.ts), or undefined
 * when none is in force: always with -allowed-hosts, else while writes are open. A host name in
 * -listen is the operator's own name for the server (the bundled config checks itself by it), so
 * it is allowed too.
 */
export function hostCheckOf(
  o: Pick<ServerOptions, "readOnly" | "apiToken" | "authConfig" | "allowedHosts" | "listen">,
): ((host: string | undefined) => boolean) | undefined {
  const allowed = o.allowedHosts ?? [];
  if (allowed.length === 0 && !writesOpen(o)) return undefined;
  const listenHost = parseListen(o.listen)?.host ?? "";
  return createHostCheck(listenHost === "" ? allowed : [...allowed, listenHost]);
}

/** Whether a bound address is loopback only (127.0.0.0/8, ::1, IPv4-mapped 127/8). */
export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase().replace(/^::ffff:/, "");
  if (isIP(a) === 4) return a.startsWith("127.");
  return a === "::1";
}
