import { BlockList, isIP } from "node:net";

/**
 * The address of the client behind a request: the TCP peer's, or — when the peer is one of the
 * -trusted-proxies — the right-most address in `X-Forwarded-For` that is not itself a trusted
 * proxy (the standard rule, as nginx's real_ip_recursive: every hop appends the address it got the
 * request from, and only the hops we trust are believed). A peer that is not trusted cannot choose
 * its address by sending the header. An entry that is not an address stops the walk at the last
 * trusted hop; a header made only of trusted proxies names its left-most one.
 */
export type ClientAddress = (peer: string, forwardedFor: string | undefined) => string;

/** Why a -trusted-proxies entry is not a CIDR or address; undefined when it is. */
export function trustedProxyProblem(entry: string): string | undefined {
  return parseCidr(entry) === undefined
    ? `invalid value "${entry}" in -trusted-proxies: want an address or CIDR (10.0.0.0/8, ::1/128, 127.0.0.1)`
    : undefined;
}

/** The client address function for these trusted proxies (none: always the peer). */
export function createClientAddress(trusted: readonly string[]): ClientAddress {
  if (trusted.length === 0) return (peer) => normalize(peer);
  const list = new BlockList();
  for (const entry of trusted) {
    const c = parseCidr(entry);
    if (c === undefined) throw new Error(trustedProxyProblem(entry));
    list.addSubnet(c.address, c.prefix, c.family);
  }
  const isTrusted = (a: string) => {
    const family = isIP(a);
    return family !== 0 && list.check(a, family === 4 ? "ipv4" : "ipv6");
  };
  return (peer, forwardedFor) => {
    let client = normalize(peer);
    if (!isTrusted(client) || forwardedFor === undefined) return client;
    const hops = forwardedFor.split(",");
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalize(stripPort((hops[i] ?? "").trim()));
      if (isIP(hop) === 0) return client;
      client = hop;
      if (!isTrusted(hop)) return hop;
    }
    return client;
  };
}

/** An IPv4-mapped IPv6 address as its IPv4 form, lower-case. */
function normalize(a: string): string {
  const l = a.toLowerCase();
  return l.startsWith("::ffff:") && isIP(l.slice(7)) === 4 ? l.slice(7) : l;
}

/** `[v6]:port` → v6, `v4:port` → v4; anything else unchanged. */
function stripPort(h: string): string {
  const bracket = /^\[([^\]]+)\](?::\d+)?$/.exec(h);
  if (bracket !== null) return bracket[1] as string;
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(h);
  return v4 === null ? h : (v4[1] as string);
}

function parseCidr(entry: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } | undefined {
  const [addr = "", len, extra] = entry.trim().split("/");
  if (extra !== undefined) return undefined;
  const a = normalize(addr);
  const family = isIP(a);
  if (family === 0) return undefined;
  const max = family === 4 ? 32 : 128;
  const prefix = len === undefined ? max : /^\d{1,3}$/.test(len) ? Number(len) : Number.NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { address: a, prefix, family: family === 4 ? "ipv4" : "ipv6" };
}
