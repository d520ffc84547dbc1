import { isIP } from "node:net";

/**
 * Whether a request's Host (HTTP/1.1) or `:authority` (HTTP/2) names this server in a way no other
 * web site can borrow. It guards against DNS rebinding: a page on attacker.example whose name the
 * attacker re-points at 127.0.0.1 (or at the server's LAN address) is same-origin with Lookout in
 * the victim's browser, but its requests still say `Host: attacker.example`.
 *
 * Accepted: `localhost` and `*.localhost` (RFC 6761: browsers resolve them to loopback themselves),
 * a loopback address literal (127.0.0.0/8, ::1), the names and addresses in `allowed` (exact,
 * case-insensitive; an operator who reaches the server by its LAN address lists it), everything
 * when `allowed` holds `*`, and a request with no Host at all (no browser sends one). A port and a
 * trailing dot are ignored.
 */
export function createHostCheck(allowed: readonly string[]): (host: string | undefined) => boolean {
  const names = new Set(allowed.map((n) => canonical(n.toLowerCase().replace(/\.$/, ""))));
  const any = names.has("*");
  return (host) => {
    if (host === undefined || host === "" || any) return true;
    const name = hostName(host);
    if (name === undefined) return false;
    if (name === "localhost" || name.endsWith(".localhost")) return true;
    if (isLoopbackLiteral(name)) return true;
    return names.has(canonical(name));
  };
}

/** Whether an address literal is loopback: 127.0.0.0/8, ::1, or 127/8 mapped into IPv6. */
function isLoopbackLiteral(name: string): boolean {
  const a = name.replace(/^::ffff:/, "");
  if (isIP(a) === 4) return a.startsWith("127.");
  return isIP(name) === 6 && canonical(name) === "::1";
}

/** One spelling per IPv6 address (`0:0::1` and `::1` are one), names as they are. */
function canonical(name: string): string {
  if (isIP(name) !== 6) return name;
  try {
    return new URL(`http://[${name}]/`).hostname.slice(1, -1);
  } catch {
    return name;
  }
}

/** The name or address of a Host header value, lower-case, without port or trailing dot. */
export function hostName(host: string): string | undefined {
  const h = host.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    if (end < 0) return undefined;
    const rest = h.slice(end + 1);
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return undefined;
    return h.slice(1, end);
  }
  const m = /^([^:]*)(?::\d{1,5})?$/.exec(h);
  if (m === null) return undefined;
  return (m[1] ?? "").replace(/\.$/, "");
}

/** Whether an -allowed-hosts entry is a host name, an address or `*` (no port, no scheme). */
export function isAllowedHostEntry(entry: string): boolean {
  if (entry === "*") return true;
  if (isIP(entry) !== 0) return true;
  return /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i.test(
    entry,
  );
}
