import { isIP } from "node:net";
import {
  checkServerIdentity,
  connect,
  type DetailedPeerCertificate,
  type PeerCertificate,
  type TLSSocket,
} from "node:tls";
import type { CheckOutcome, PerfDatum } from "../../model/check-result.js";
import type { Checker, CheckTarget } from "../../model/checker.js";
import type { TlsProbe } from "../../model/config.js";
import type { ExitStatus } from "../../model/state.js";
import { type CaFileReader, createCaFileReader } from "../ca-file.js";
import {
  abortOutcome,
  describeNetError,
  describeTlsVerifyError,
  type HostPort,
  oneLine,
  outcome,
  parseHostPort,
  perfDatum,
  timeDatum,
} from "../format.js";

const PREFIX = "SSL_CERT";
const DAY_MS = 86_400_000;
/** The schema's defaults, used when a probe arrives without them. */
const DEFAULT_WARN_WITHIN_MS = 336 * 3_600_000;
const DEFAULT_CRIT_WITHIN_MS = 72 * 3_600_000;

/** Options of the `tls` checker that are not per check. */
export interface TlsCheckerOptions {
  /**
   * Trusted roots (PEM); default Node's bundled Mozilla roots plus NODE_EXTRA_CA_CERTS. A check's
   * `ca_file` replaces them.
   */
  readonly ca?: readonly string[];
  /** Where `ca_file` bundles are read; default one reader per checker. */
  readonly caFiles?: CaFileReader;
  /** The wall clock certificates are judged against (ms since the epoch); default Date.now. */
  readonly now?: () => number;
}

/**
 * Creates the `tls` checker: a TLS handshake with `address` (`host:port`, port 443 when left
 * out; SNI is `sni`, else the host unless it is an IP literal), then a look at the leaf
 * certificate. CRITICAL when it expires within `crit_within` or has expired, WARNING within
 * `warn_within`; unless `verify` is false, CRITICAL too when the chain does not verify against the
 * trusted roots (`ca_file`, or the defaults) or the certificate does not name the host (`sni` when
 * set). Every problem found is listed; the state is the worst of them. Days left are whole days,
 * rounded down, in the output and the `days` perfdata alike.
 */
export function createTlsChecker(options: TlsCheckerOptions = {}): Checker<TlsProbe> {
  const ca = options.ca === undefined ? undefined : [...options.ca];
  const caFiles = options.caFiles ?? createCaFileReader();
  const now = options.now ?? Date.now;
  return {
    type: "tls",
    run: (target, signal) =>
      runTls(target, signal, ca, caFiles, now).catch((e: unknown) =>
        outcome(PREFIX, 3, `malformed check: ${describeNetError(e)}`),
      ),
  };
}

async function runTls(
  target: CheckTarget<TlsProbe>,
  signal: AbortSignal,
  defaultCa: string[] | undefined,
  caFiles: CaFileReader,
  now: () => number,
): Promise<CheckOutcome> {
  const probe = target?.probe;
  const address: unknown = probe?.address;
  const hp = typeof address === "string" ? parseHostPort(address, 443) : undefined;
  if (hp === undefined) {
    return Promise.resolve(
      outcome(PREFIX, 3, `invalid address ${JSON.stringify(address)}: expected host:port`),
    );
  }
  const warnMs = duration(probe.warnWithinMs, DEFAULT_WARN_WITHIN_MS);
  const critMs = duration(probe.critWithinMs, DEFAULT_CRIT_WITHIN_MS);
  if (warnMs === undefined || critMs === undefined) {
    return Promise.resolve(outcome(PREFIX, 3, "invalid warn_within or crit_within"));
  }
  const where = `${hp.host} port ${hp.port}`;
  const start = performance.now();
  if (signal.aborted) return abortOutcome(PREFIX, signal, `TLS handshake with ${where}`, start);
  const timeoutMs = probe.timeoutMs;
  let ca = defaultCa;
  if (probe.caFile !== undefined) {
    const read = await caFiles.read(probe.caFile);
    if (!read.ok) return outcome(PREFIX, 3, read.error);
    ca = [read.pem];
  }
  const sni = probe.sni ?? (isIP(hp.host) === 0 ? hp.host : undefined);
  const judged: Judged = {
    hp,
    name: probe.sni ?? hp.host,
    verify: probe.verify !== false,
    now: now(),
    timeoutMs,
    warnMs,
    critMs,
  };

  return new Promise<CheckOutcome>((resolve) => {
    let settled = false;
    let socket: TLSSocket | undefined;
    let connected = false;
    const finish = (result: CheckOutcome): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      socket?.destroy();
      resolve(result);
    };
    const onAbort = (): void => finish(abortOutcome(PREFIX, signal, `TLS handshake with ${where}`, start));
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      socket = connect({
        host: hp.host,
        port: hp.port,
        // SNI carries names only; RFC 6066 forbids IP literals there.
        ...(sni === undefined ? {} : { servername: sni }),
        // Verification is done below, so an untrusted or expired certificate is still inspected.
        rejectUnauthorized: false,
        ...(ca === undefined ? {} : { ca }),
      });
    } catch (err) {
      finish(outcome(PREFIX, 3, `TLS handshake with ${where}: ${describeNetError(err)}`));
      return;
    }
    socket.once("connect", () => {
      connected = true;
    });
    socket.on("error", (err) => {
      const what = connected ? `TLS handshake with ${where} failed` : `connect to ${where}`;
      finish(outcome(PREFIX, 2, `${what}: ${describeNetError(err)}`));
    });
    socket.once("secureConnect", () => {
      const s = socket as TLSSocket;
      const seconds = (performance.now() - start) / 1000;
      finish(judge(judged, s.getPeerCertificate(true), s.authorizationError, seconds));
    });
  });
}

function duration(value: unknown, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Expiry and verification problems that make up the verdict, each with its state. */
interface Finding {
  readonly status: ExitStatus;
  readonly text: string;
}

/** What a handshake's certificate is judged against. */
interface Judged {
  readonly hp: HostPort;
  /** The name the certificate must carry: `sni`, else the address's host. */
  readonly name: string;
  readonly verify: boolean;
  readonly now: number;
  readonly timeoutMs: number;
  readonly warnMs: number;
  readonly critMs: number;
}

function judge(j: Judged, cert: DetailedPeerCertificate, authError: unknown, seconds: number): CheckOutcome {
  const { hp, timeoutMs, warnMs, critMs, now } = j;
  if (cert === undefined || cert === null || typeof cert.valid_to !== "string") {
    return outcome(PREFIX, 2, `${hp.host} port ${hp.port} presented no certificate`);
  }
  const notAfter = Date.parse(cert.valid_to);
  const notBefore = Date.parse(cert.valid_from);
  const leftMs = notAfter - now;
  const days = leftMs / DAY_MS;
  const findings: Finding[] = [];

  if (!Number.isFinite(notAfter)) {
    findings.push({ status: 3, text: `unreadable notAfter ${JSON.stringify(cert.valid_to)}` });
  } else if (leftMs <= 0) {
    findings.push({ status: 2, text: `expired ${formatDays(-days)} ago` });
  } else if (leftMs <= critMs) {
    findings.push({ status: 2, text: `expires in ${formatDays(days)}` });
  } else if (leftMs <= warnMs) {
    findings.push({ status: 1, text: `expires in ${formatDays(days)}` });
  }
  // An intermediate that runs out takes the site down just as surely as the leaf.
  let minDays = days;
  for (const ca of intermediates(cert)) {
    const caLeft = Date.parse(ca.valid_to) - now;
    if (!Number.isFinite(caLeft)) continue;
    const caDays = caLeft / DAY_MS;
    if (!(caDays >= minDays)) minDays = caDays;
    const label = `intermediate '${name(ca.subject)}'`;
    if (caLeft <= 0) findings.push({ status: 2, text: `${label} expired ${formatDays(-caDays)} ago` });
    else if (caLeft <= critMs)
      findings.push({ status: 2, text: `${label} expires in ${formatDays(caDays)}` });
    else if (caLeft <= warnMs)
      findings.push({ status: 1, text: `${label} expires in ${formatDays(caDays)}` });
  }
  if (Number.isFinite(notBefore) && notBefore > now) {
    findings.push({ status: 2, text: `not valid before ${isoMinute(notBefore)}` });
  }
  // Expiry and the host name are judged here from the certificate itself; OpenSSL's verdict
  // (Node hands over its code as a string) adds only what those cannot say: the chain.
  const code = typeof authError === "string" ? authError : (authError as { code?: unknown } | null)?.code;
  if (
    j.verify &&
    authError &&
    code !== "CERT_HAS_EXPIRED" &&
    code !== "CERT_NOT_YET_VALID" &&
    code !== "ERR_TLS_CERT_ALTNAME_INVALID"
  ) {
    const why =
      (typeof code === "string" ? describeTlsVerifyError({ code }) : undefined) ??
      oneLine(typeof code === "string" ? code : String(authError));
    findings.push({ status: 2, text: `chain not trusted: ${why}` });
  }
  const mismatch = j.verify ? checkServerIdentity(j.name, cert) : undefined;
  if (mismatch !== undefined) {
    // Node's message ends in a list that is empty for IP hosts; the certificate's own names say more.
    const names =
      typeof cert.subjectaltname === "string" ? cert.subjectaltname.replaceAll("IP Address:", "IP:") : "";
    findings.push({
      status: 2,
      text: `does not match ${j.name} (certificate names ${names === "" ? `CN=${name(cert.subject)}` : oneLine(names)})`,
    });
  }

  const status = findings.reduce<ExitStatus>((worst, f) => Math.max(worst, f.status) as ExitStatus, 0);
  const subject = name(cert.subject);
  const issuer = name(cert.issuer);
  const valid = Number.isFinite(notAfter) ? ` valid until ${isoMinute(notAfter)}` : "";
  const summary =
    findings.length === 0 ? `expires in ${formatDays(days)}` : findings.map((f) => f.text).join("; ");
  const perfdata: PerfDatum[] = [timeDatum(seconds, timeoutMs)];
  if (Number.isFinite(minDays)) {
    perfdata.push({
      ...perfDatum("days", wholeDays(minDays), ""),
      warn: `${round3(warnMs / DAY_MS)}:`,
      crit: `${round3(critMs / DAY_MS)}:`,
    });
  }
  return outcome(
    PREFIX,
    status,
    `${hp.host} port ${hp.port}: certificate '${subject}' from '${issuer}'${valid}, ${summary}`,
    perfdata,
  );
}

/**
 * The CA certificates between the leaf and the root, as the handshake's chain has them; roots
 * (self-signed, from the trust store) are left out, since replacing them is the client's business.
 */
function intermediates(leaf: DetailedPeerCertificate): DetailedPeerCertificate[] {
  const out: DetailedPeerCertificate[] = [];
  const seen = new Set<string>([leaf.fingerprint256]);
  let c = leaf.issuerCertificate;
  while (
    c !== undefined &&
    c !== null &&
    typeof c.fingerprint256 === "string" &&
    !seen.has(c.fingerprint256)
  ) {
    seen.add(c.fingerprint256);
    const issuer = c.issuerCertificate;
    const selfSigned =
      issuer === undefined || issuer === null
        ? JSON.stringify(c.subject) === JSON.stringify(c.issuer)
        : issuer.fingerprint256 === c.fingerprint256;
    if (selfSigned) break;
    out.push(c);
    c = c.issuerCertificate;
  }
  return out;
}

function name(dn: PeerCertificate["subject"] | undefined): string {
  if (dn === undefined || dn === null) return "?";
  const cn = dn.CN;
  const text = Array.isArray(cn) ? cn.join(",") : cn;
  return oneLine(typeof text === "string" && text.length > 0 ? text : (dn.O ?? "?").toString()).replaceAll(
    "'",
    "",
  );
}

/**
 * Whole days left, rounded toward zero as check_http -C does (a certificate with 9 days and 23
 * hours left has 9 days; one that expired 5 hours ago, 0); the output and the perfdata both say it.
 */
function wholeDays(days: number): number {
  return Math.trunc(days) || 0;
}

function formatDays(days: number): string {
  return days >= 2 ? `${wholeDays(days)} days` : `${(days * 24).toFixed(1)} hours`;
}

function isoMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
