/**
 * The `tcp` check type: connect to `host:port` in-process and report the connect time, like
 * monitoring-plugins' check_tcp without a send/expect exchange. See docs/checks.md.
 */
export { createTcpChecker } from "./tcp-checker.js";
