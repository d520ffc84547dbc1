import { type ChildProcess, spawn } from "node:child_process";
import type { CheckOutcome } from "../../model/check-result.js";
import type { IcmpProbe } from "../../model/config.js";
import type { Checker, CheckTarget } from "../check.js";
import { abortOutcome, describeNetError, oneLine, outcome } from "../format.js";
import { parseFpingSummary, pingVerdict } from "./fping.js";

const PREFIX = "PING";
/** fping's stderr for one host is a few lines; more than this is not worth keeping. */
const MAX_STDERR = 16 * 1024;

/** Options of the `icmp` checker that are not per check. */
export interface IcmpCheckerOptions {
  /** The fping binary; default `fping` from PATH (Debian's package installs it with cap_net_raw). */
  readonly fping?: string;
  /** Echo requests per run; default 5, as check_ping sends. */
  readonly packets?: number;
  /** Milliseconds between requests; default 200. */
  readonly intervalMs?: number;
  /** Milliseconds to wait for each reply; default 500. */
  readonly replyTimeoutMs?: number;
}

/**
 * Creates the `icmp` checker: it runs `fping -C <packets> -q -p <interval> -t <reply timeout>
 * <host>` (no shell) and judges round-trip average and loss by ICMP_THRESHOLDS. A host with no
 * replies is CRITICAL, one fping cannot resolve CRITICAL, a malformed host or a missing fping
 * UNKNOWN. On abort fping is killed by its PID. A run takes about
 * `(packets - 1) * interval + reply timeout` (1.3 s by default).
 */
export function createIcmpChecker(options: IcmpCheckerOptions = {}): Checker<IcmpProbe> {
  const fping = options.fping ?? "fping";
  const flags = [
    "-C",
    String(options.packets ?? 5),
    "-q",
    "-p",
    String(options.intervalMs ?? 200),
    "-t",
    String(options.replyTimeoutMs ?? 500),
  ];
  return { type: "icmp", run: (target, signal) => runPing(fping, flags, target, signal) };
}

/** Host names and IPv4/IPv6 literals (with an optional zone); never something fping reads as a flag. */
const HOST_RE = /^[A-Za-z0-9_:][A-Za-z0-9_.:%-]*$/;

function runPing(
  fping: string,
  flags: readonly string[],
  target: CheckTarget<IcmpProbe>,
  signal: AbortSignal,
): Promise<CheckOutcome> {
  const given: unknown = target?.probe?.host;
  // `[::1]` is accepted as a courtesy to people used to URLs; fping wants the bare literal.
  const host = typeof given === "string" && /^\[.*\]$/.test(given) ? given.slice(1, -1) : given;
  if (typeof host !== "string" || host.length > 253 || !HOST_RE.test(host)) {
    return Promise.resolve(outcome(PREFIX, 3, `invalid host ${JSON.stringify(given)}`));
  }
  const start = performance.now();
  if (signal.aborted) return Promise.resolve(abortOutcome(PREFIX, signal, `ping ${host}`, start));

  return new Promise<CheckOutcome>((resolve) => {
    let settled = false;
    let child: ChildProcess | undefined;
    let stderr = "";
    const finish = (result: CheckOutcome): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      resolve(result);
    };
    const onAbort = (): void => finish(abortOutcome(PREFIX, signal, `ping ${host}`, start));
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      child = spawn(fping, [...flags, host], {
        stdio: ["ignore", "ignore", "pipe"],
        env: { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin", LC_ALL: "C" },
      });
    } catch (err) {
      finish(outcome(PREFIX, 3, `cannot run ${fping}: ${describeNetError(err)}`));
      return;
    }
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.length < MAX_STDERR) stderr += chunk;
    });
    child.on("error", (err: NodeJS.ErrnoException) => {
      const why = err.code === "ENOENT" ? "not found (install the fping package)" : describeNetError(err);
      finish(outcome(PREFIX, 3, `cannot run ${fping}: ${why}`));
    });
    // 'close' rather than 'exit': stderr is complete only once its pipe has closed.
    child.on("close", (code: number | null) => {
      const samples = parseFpingSummary(stderr);
      if (samples !== undefined && samples.length > 0) {
        finish(pingVerdict(host, samples));
        return;
      }
      const said = oneLine(stderr.trim()) || `fping exited with status ${code}`;
      // fping exits 2 when it cannot resolve the host: the host is as good as down.
      finish(outcome(PREFIX, code === 2 ? 2 : 3, `${host}: ${said}`));
    });
  });
}
