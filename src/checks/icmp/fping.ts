import type { CheckOutcome, PerfDatum } from "../../model/check-result.js";
import type { ExitStatus } from "../../model/state.js";
import { outcome, perfDatum } from "../format.js";

const PREFIX = "PING";

/**
 * The thresholds of the `icmp` check. The schema has no threshold fields, so these are fixed:
 * WARNING when the average round trip exceeds 100 ms or more than 20% of the packets are lost,
 * CRITICAL above 200 ms or 60% (with 5 packets: 2 lost warn, 4 lost crit, all lost is CRITICAL).
 * Icinga's ITL `ping` command uses the same round-trip limits but 5%/15% loss, which turns one
 * lost packet out of five into CRITICAL; we judged that too jumpy for a default.
 */
export const ICMP_THRESHOLDS = { warnRtaMs: 100, critRtaMs: 200, warnLossPct: 20, critLossPct: 60 } as const;

/**
 * Parses the summary fping prints on stderr with `-C <n>`: one line per host,
 * `host : 0.041 0.038 - 0.040` where `-` is a lost packet and the host is written as it was given
 * (padded with spaces). Returns the samples per host, in milliseconds, undefined for lost.
 */
export function parseFpingSummaries(stderr: string): Map<string, (number | undefined)[]> {
  const out = new Map<string, (number | undefined)[]>();
  for (const line of stderr.split("\n")) {
    const m = /^(\S+)\s+:\s+((?:[0-9.]+|-)(?:\s+(?:[0-9.]+|-))*)\s*$/.exec(line);
    if (m === null) continue;
    out.set(
      m[1]!,
      m[2]!.split(/\s+/).map((s) => (s === "-" ? undefined : Number(s))),
    );
  }
  return out;
}

/** The outcome for one host's samples, judged by ICMP_THRESHOLDS. */
export function pingVerdict(host: string, samples: readonly (number | undefined)[]): CheckOutcome {
  const sent = samples.length;
  const rtts = samples.filter((s): s is number => s !== undefined && Number.isFinite(s));
  const lossPct = sent === 0 ? 100 : Math.round(((sent - rtts.length) * 100) / sent);
  const pl = perfDatum("pl", lossPct, "%", 0, 100);
  const plDatum: PerfDatum = {
    ...pl,
    warn: String(ICMP_THRESHOLDS.warnLossPct),
    crit: String(ICMP_THRESHOLDS.critLossPct),
  };
  if (rtts.length === 0) {
    return outcome(PREFIX, 2, `${host}: Packet loss = 100%, no echo reply to ${sent} packets`, [plDatum]);
  }
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  for (const r of rtts) {
    sum += r;
    if (r < min) min = r;
    if (r > max) max = r;
  }
  const rta = sum / rtts.length;
  const t = ICMP_THRESHOLDS;
  const status: ExitStatus =
    rta > t.critRtaMs || lossPct > t.critLossPct ? 2 : rta > t.warnRtaMs || lossPct > t.warnLossPct ? 1 : 0;
  return outcome(PREFIX, status, `${host}: Packet loss = ${lossPct}%, RTA = ${rta.toFixed(3)} ms`, [
    { ...perfDatum("rta", round3(rta), "ms", 0), warn: String(t.warnRtaMs), crit: String(t.critRtaMs) },
    plDatum,
    perfDatum("rtmin", round3(min), "ms", 0),
    perfDatum("rtmax", round3(max), "ms", 0),
  ]);
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
