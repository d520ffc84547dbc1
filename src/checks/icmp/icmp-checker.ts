import type { CheckOutcome } from "../../model/check-result.js";
import type { Checker } from "../../model/checker.js";
import type { IcmpProbe } from "../../model/config.js";
import { abortOutcome, outcome } from "../format.js";
import { createFpingBatcher } from "./fping-batcher.js";

const PREFIX = "PING";

/** Options of the `icmp` checker that are not per check. */
export interface IcmpCheckerOptions {
  /** The fping binary; default `fping` from PATH (Debian's package installs it with cap_net_raw). */
  readonly fping?: string;
  /** Echo requests per run; default 5, as check_ping sends. */
  readonly packets?: number;
  /** Milliseconds between requests to one host; default 200. */
  readonly intervalMs?: number;
  /** Milliseconds to wait for each reply; default 500. */
  readonly replyTimeoutMs?: number;
  /** How long a run waits for others to share its fping process; default 20 ms. */
  readonly batchWindowMs?: number;
  /** Hosts per fping process at most; default 128. */
  readonly batchMaxHosts?: number;
}

/** Host names and IPv4/IPv6 literals (with an optional zone); never something fping reads as a flag. */
const HOST_RE = /^[A-Za-z0-9_:][A-Za-z0-9_.:%-]*$/;

/**
 * Creates the `icmp` checker: it pings `host` with `fping -C <packets> -p <interval> -t <reply
 * timeout> -i 1 <hosts…>` (no shell) and judges round-trip average and loss by ICMP_THRESHOLDS.
 * Runs starting within `batchWindowMs` of each other share one fping process. A host with no
 * replies is CRITICAL, one fping cannot resolve CRITICAL, a malformed host or a missing fping
 * UNKNOWN. An aborted run settles at once; fping is killed by its PID once no run waits for it. A
 * run takes about `(packets - 1) * interval + reply timeout` (1.3 s by default).
 */
export function createIcmpChecker(options: IcmpCheckerOptions = {}): Checker<IcmpProbe> {
  const ping = createFpingBatcher({
    fping: options.fping ?? "fping",
    flags: [
      "-C",
      String(options.packets ?? 5),
      "-p",
      String(options.intervalMs ?? 200),
      "-t",
      String(options.replyTimeoutMs ?? 500),
      // 1 ms between packets to different hosts (fping's default is 10), so a batch of 128
      // hosts still sends each round within the 200 ms period.
      "-i",
      "1",
    ],
    windowMs: options.batchWindowMs ?? 20,
    maxHosts: options.batchMaxHosts ?? 128,
  });
  return {
    type: "icmp",
    run(target, signal): Promise<CheckOutcome> {
      const given: unknown = target?.probe?.host;
      // `[::1]` is accepted as a courtesy to people used to URLs; fping wants the bare literal.
      const host = typeof given === "string" && /^\[.*\]$/.test(given) ? given.slice(1, -1) : given;
      if (typeof host !== "string" || host.length > 253 || !HOST_RE.test(host)) {
        return Promise.resolve(outcome(PREFIX, 3, `invalid host ${JSON.stringify(given)}`));
      }
      if (signal.aborted)
        return Promise.resolve(abortOutcome(PREFIX, signal, `ping ${host}`, performance.now()));
      return ping(host, signal);
    },
  };
}
