/**
 * The `icmp` check type: round-trip time and packet loss to a host, measured by Debian's fping
 * (one process for every batch of runs that start together, killed once nobody waits for it) and
 * judged by fixed thresholds like check_ping's. See docs/checks.md.
 */
export { ICMP_THRESHOLDS, parseFpingSummaries, pingVerdict } from "./fping.js";
export { createIcmpChecker, type IcmpCheckerOptions } from "./icmp-checker.js";
