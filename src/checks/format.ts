/**
 * Small helpers the network probes share: parsing `host:port`, timing, perfdata points and the
 * wording of socket errors. They allocate little on purpose: the tcp probe calls them on every run.
 */
import type { CheckOutcome, PerfDatum } from "../model/check-result.js";
import type { ExitStatus } from "../model/state.js";

/** A parsed `host:port`; `host` is without brackets (`::1`, not `[::1]`). */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses `host:port`, `[v6]:port`, and with `defaultPort` also `host`, `[v6]` or a bare IPv6
 * literal. Returns undefined for anything else (an empty host, a port outside 1..65535, junk).
 */
export function parseHostPort(address: string, defaultPort?: number): HostPort | undefined {
  if (typeof address !== "string" || address.length === 0) return undefined;
  let host: string;
  let portText: string | undefined;
  if (address.charCodeAt(0) === 91 /* [ */) {
    const close = address.indexOf("]");
    if (close < 2) return undefined;
    host = address.slice(1, close);
    if (close === address.length - 1) portText = undefined;
    else if (address.charCodeAt(close + 1) === 58 /* : */) portText = address.slice(close + 2);
    else return undefined;
  } else {
    const colon = address.lastIndexOf(":");
    if (colon < 0) {
      host = address;
    } else if (address.indexOf(":") !== colon) {
      // Two or more colons without brackets: a bare IPv6 literal, which cannot carry a port.
      host = address;
    } else {
      host = address.slice(0, colon);
      portText = address.slice(colon + 1);
    }
  }
  if (host.length === 0 || /[\s/]/.test(host)) return undefined;
  if (portText === undefined) {
    return defaultPort === undefined ? undefined : { host, port: defaultPort };
  }
  if (!/^[0-9]{1,5}$/.test(portText)) return undefined;
  const port = Number(portText);
  if (port < 1 || port > 65535) return undefined;
  return { host, port };
}

/** Formats seconds the way monitoring-plugins do in outputs: three decimals. */
export function formatSeconds(seconds: number): string {
  return seconds.toFixed(3);
}

/** Seconds elapsed since a `performance.now()` reading. */
export function secondsSince(startMs: number): number {
  return (performance.now() - startMs) / 1000;
}

/** A perfdata point with no thresholds. */
export function perfDatum(label: string, value: number, uom: string, min?: number, max?: number): PerfDatum {
  if (min === undefined && max === undefined) return { label, value, uom, warn: "", crit: "" };
  if (max === undefined) return { label, value, uom, warn: "", crit: "", min };
  return { label, value, uom, warn: "", crit: "", min, max };
}

/** The `time` point every network probe reports: seconds, min 0, max the check's timeout. */
export function timeDatum(seconds: number, timeoutMs: number): PerfDatum {
  return perfDatum("time", seconds, "s", 0, timeoutMs > 0 ? timeoutMs / 1000 : undefined);
}

/** The word monitoring-plugins print for an exit status. */
export function statusWord(status: ExitStatus): "OK" | "WARNING" | "CRITICAL" | "UNKNOWN" {
  switch (status) {
    case 0:
      return "OK";
    case 1:
      return "WARNING";
    case 2:
      return "CRITICAL";
    case 3:
      return "UNKNOWN";
    default: {
      const never: never = status;
      return never;
    }
  }
}

const NO_PERFDATA: readonly PerfDatum[] = Object.freeze([]);

/** An outcome with `PREFIX STATE - text` as its output and optional perfdata. */
export function outcome(
  prefix: string,
  exitStatus: ExitStatus,
  text: string,
  perfdata: readonly PerfDatum[] = NO_PERFDATA,
  longOutput = "",
): CheckOutcome {
  return {
    exitStatus,
    output: `${prefix} ${statusWord(exitStatus)} - ${oneLine(text)}`,
    longOutput,
    perfdata,
  };
}

/**
 * Makes text safe for a plugin output line: line breaks collapse to a space and `|`, which would
 * start perfdata, becomes `/` (a peer's status text or error message may contain either).
 */
export function oneLine(text: string): string {
  return /[\r\n|]/.test(text) ? text.replace(/\s*[\r\n]+\s*/g, " ").replaceAll("|", "/") : text;
}

/**
 * Describes a socket or resolver error in the words `strerror` uses, which is what users of
 * check_tcp and check_http know; unknown codes fall back to the error's own message.
 */
export function describeNetError(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  switch (code) {
    case "ECONNREFUSED":
      return "Connection refused";
    case "ECONNRESET":
      return "Connection reset by peer";
    case "ETIMEDOUT":
      return "Connection timed out";
    case "EHOSTUNREACH":
      return "No route to host";
    case "ENETUNREACH":
      return "Network is unreachable";
    case "EADDRNOTAVAIL":
      return "Cannot assign requested address";
    case "EPIPE":
      return "Broken pipe";
    case "ENOTFOUND":
    case "EAI_NONAME":
      return "Name or service not known";
    case "EAI_AGAIN":
      return "Temporary failure in name resolution";
    default: {
      const message = typeof e?.message === "string" && e.message.length > 0 ? e.message : String(err);
      return oneLine(message);
    }
  }
}

const TLS_VERIFY_WORDS: Readonly<Record<string, string>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: "self-signed certificate",
  SELF_SIGNED_CERT_IN_CHAIN: "self-signed certificate in chain",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "unable to verify the first certificate",
  UNABLE_TO_GET_ISSUER_CERT: "unable to get issuer certificate",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "unable to get local issuer certificate",
  CERT_HAS_EXPIRED: "certificate has expired",
  CERT_NOT_YET_VALID: "certificate is not yet valid",
  CERT_REVOKED: "certificate revoked",
  CERT_UNTRUSTED: "certificate not trusted",
  CERT_SIGNATURE_FAILURE: "certificate signature failure",
  INVALID_CA: "invalid CA certificate",
  ERR_TLS_CERT_ALTNAME_INVALID: "certificate does not match the host name",
};

/**
 * When `err` is a failed certificate verification (an OpenSSL verify code, or Node's host name
 * check), describes it as `reason (CODE)`; otherwise undefined.
 */
export function describeTlsVerifyError(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  const words = TLS_VERIFY_WORDS[code];
  if (words === undefined) return undefined;
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID") {
    // Node's reason ends in a list that is empty for IP hosts; the certificate's names say more.
    const names = (err as { cert?: { subjectaltname?: unknown } }).cert?.subjectaltname;
    return typeof names === "string" && names.length > 0
      ? `${words} (certificate names ${oneLine(names.replaceAll("IP Address:", "IP:"))})`
      : words;
  }
  return `${words} (${code})`;
}

/** Whether the signal's reason is a timeout (AbortSignal.timeout, or any reason named TimeoutError). */
export function isTimeoutAbort(signal: AbortSignal): boolean {
  const reason = signal.reason as { name?: unknown } | null | undefined;
  return reason !== undefined && reason !== null && reason.name === "TimeoutError";
}

/**
 * The outcome of a run cut short by its signal: CRITICAL for the scheduler's timeout, as
 * monitoring-plugins report a socket timeout, UNKNOWN for anything else (shutdown, a reload).
 */
export function abortOutcome(
  prefix: string,
  signal: AbortSignal,
  what: string,
  startMs: number,
): CheckOutcome {
  const elapsed = formatSeconds(secondsSince(startMs));
  return isTimeoutAbort(signal)
    ? outcome(prefix, 2, `${what}: timed out after ${elapsed} seconds`)
    : outcome(prefix, 3, `${what}: check aborted after ${elapsed} seconds`);
}
