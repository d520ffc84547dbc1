/**
 * The `icmp` check type: round-trip time and packet loss to a host, measured by Debian's fping
 * (one short-lived process per run, killed on abort) and judged by fixed thresholds like
 * check_ping's. See docs/checks.md.
 */
export { ICMP_THRESHOLDS, parseFpingSummary, pingVerdict } from "./fping.js";
export { createIcmpChecker, type IcmpCheckerOptions } from "./icmp-checker.js";
