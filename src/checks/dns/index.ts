/**
 * The `dns` check type: resolve a name's A and AAAA records in-process through one given server
 * (never the system resolver) and report the answers and response time, like monitoring-plugins'
 * check_dig. See docs/checks.md.
 */
export { createDnsChecker } from "./dns-checker.js";
