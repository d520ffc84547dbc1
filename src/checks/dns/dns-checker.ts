import { Resolver } from "node:dns";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import type { CheckOutcome } from "../../model/check-result.js";
import type { Checker, CheckTarget } from "../../model/checker.js";
import type { DnsProbe } from "../../model/config.js";
import {
  abortOutcome,
  describeNetError,
  formatSeconds,
  type HostPort,
  outcome,
  parseHostPort,
  timeDatum,
} from "../format.js";

const PREFIX = "DNS";
/** Addresses listed in the output; a round-robin name with more gets "and N more". */
const MAX_LISTED = 8;

/**
 * Creates the `dns` checker: it asks `server` (`host:port`, port 53 when left out) for the A and
 * AAAA records of `name`, in parallel, through that server only (never the system resolver), and
 * reports the response time and the addresses. OK when either query returns addresses; CRITICAL
 * for NXDOMAIN, no address records, SERVFAIL, REFUSED, no answer, or a refused port; UNKNOWN for a
 * malformed server or name. A server given by name is looked up with the system resolver first.
 */
export function createDnsChecker(): Checker<DnsProbe> {
  return { type: "dns", run: runDns };
}

interface Answer {
  readonly addresses?: string[];
  readonly error?: NodeJS.ErrnoException;
}

async function runDns(target: CheckTarget<DnsProbe>, signal: AbortSignal): Promise<CheckOutcome> {
  const start = performance.now();
  try {
    const server: unknown = target?.probe?.server;
    const name: unknown = target?.probe?.name;
    const hp = typeof server === "string" ? parseHostPort(server, 53) : undefined;
    if (hp === undefined) {
      return outcome(PREFIX, 3, `invalid server ${JSON.stringify(server)}: expected host:port`);
    }
    // An internationalized name goes on the wire in its punycode (IDNA) form, as dig sends it.
    const asked = typeof name === "string" && /[^\x00-\x7f]/.test(name) ? domainToASCII(name) : name;
    if (typeof asked !== "string" || !isPlausibleName(asked)) {
      return outcome(PREFIX, 3, `invalid name ${JSON.stringify(name)}`);
    }
    const where = `${hp.host} port ${hp.port}`;
    if (signal.aborted) return abortOutcome(PREFIX, signal, `query ${where} for ${asked}`, start);
    const ip = isIP(hp.host) !== 0 ? hp.host : await lookupServer(hp, signal);
    if (ip === undefined) {
      return signal.aborted
        ? abortOutcome(PREFIX, signal, `query ${where} for ${asked}`, start)
        : outcome(PREFIX, 3, `cannot resolve DNS server ${hp.host}`);
    }
    return await query(ip, hp, asked, target.probe.timeoutMs, signal, start);
  } catch (err) {
    // Only a bug gets here; the seam promises an outcome, never a rejection.
    return outcome(PREFIX, 3, `internal error: ${describeNetError(err)}`);
  }
}

/** Names the resolver could ever ask for: printable, no spaces, labels of at most 63 octets. */
function isPlausibleName(name: string): boolean {
  if (name.length === 0 || name.length > 253 || !/^[\x21-\x7e]+$/.test(name)) return false;
  const labels = name.endsWith(".") ? name.slice(0, -1).split(".") : name.split(".");
  return labels.every((l) => l.length > 0 && l.length <= 63);
}

async function lookupServer(hp: HostPort, signal: AbortSignal): Promise<string | undefined> {
  let onAbort = (): void => {};
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  const found = lookup(hp.host).then(
    (a) => a.address,
    () => undefined,
  );
  try {
    return await Promise.race([found, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

function query(
  ip: string,
  hp: HostPort,
  name: string,
  timeoutMs: number,
  signal: AbortSignal,
  start: number,
): Promise<CheckOutcome> {
  const where = `${hp.host} port ${hp.port}`;
  // One resolver per run: cancel() cancels every query on a resolver, so it cannot be shared.
  const perTry =
    typeof timeoutMs === "number" && timeoutMs > 0 ? Math.max(200, Math.floor(timeoutMs / 2)) : 5000;
  const resolver = new Resolver({ timeout: perTry, tries: 2 });
  resolver.setServers([ip.includes(":") ? `[${ip}]:${hp.port}` : `${ip}:${hp.port}`]);

  return new Promise<CheckOutcome>((resolve) => {
    let settled = false;
    let pending = 2;
    let v4: Answer | undefined;
    let v6: Answer | undefined;
    const finish = (result: CheckOutcome): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      resolver.cancel();
      resolve(result);
    };
    const onAbort = (): void => finish(abortOutcome(PREFIX, signal, `query ${where} for ${name}`, start));
    const done = (): void => {
      if (--pending > 0) return;
      const seconds = (performance.now() - start) / 1000;
      finish(verdict(name, where, seconds, timeoutMs, v4 ?? {}, v6 ?? {}));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    resolver.resolve4(name, (error, addresses) => {
      v4 = error ? { error } : { addresses };
      done();
    });
    resolver.resolve6(name, (error, addresses) => {
      v6 = error ? { error } : { addresses };
      done();
    });
  });
}

/** How bad an error is when both queries failed: the server's own failure beats "no such name". */
function rank(a: Answer): number {
  switch (a.error?.code) {
    case undefined:
      return 0;
    case "ENODATA":
      return 1;
    case "ENOTFOUND":
      return 2;
    default:
      return 3;
  }
}

function verdict(
  name: string,
  where: string,
  seconds: number,
  timeoutMs: number,
  v4: Answer,
  v6: Answer,
): CheckOutcome {
  const addresses = [...(v4.addresses ?? []), ...(v6.addresses ?? [])];
  if (addresses.length > 0) {
    const shown =
      addresses.length <= MAX_LISTED
        ? addresses.join(", ")
        : `${addresses.slice(0, MAX_LISTED).join(", ")} and ${addresses.length - MAX_LISTED} more`;
    return outcome(PREFIX, 0, `${formatSeconds(seconds)} seconds response time, ${name} returns ${shown}`, [
      timeDatum(seconds, timeoutMs),
    ]);
  }
  const worst = rank(v6) > rank(v4) ? v6 : v4;
  return outcome(PREFIX, worst.error === undefined ? 2 : statusOf(worst.error), describe(worst, name, where));
}

function statusOf(err: NodeJS.ErrnoException): 2 | 3 {
  return err.code === "EBADNAME" || err.code === "EBADQUERY" || err.code === "EBADFAMILY" ? 3 : 2;
}

function describe(a: Answer, name: string, where: string): string {
  switch (a.error?.code) {
    case undefined:
    case "ENODATA":
      return `${where} has no A or AAAA record for ${name}`;
    case "ENOTFOUND":
      return `${where} answered NXDOMAIN for ${name}`;
    case "ESERVFAIL":
      return `${where} answered SERVFAIL for ${name}`;
    case "EREFUSED":
      return `${where} answered REFUSED for ${name}`;
    case "ENOTIMP":
      return `${where} answered NOTIMP for ${name}`;
    case "EFORMERR":
      return `${where} answered FORMERR for ${name}`;
    case "ETIMEOUT":
      return `no answer from ${where} for ${name}`;
    case "ECONNREFUSED":
      return `query ${where} for ${name}: Connection refused`;
    case "EBADRESP":
      return `${where} sent a malformed response for ${name}`;
    case "EBADNAME":
      return `invalid name ${JSON.stringify(name)}`;
    default:
      return `query ${where} for ${name}: ${describeNetError(a.error)}`;
  }
}
