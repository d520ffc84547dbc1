/**
 * The Nagios plugin contract as a library: one parser for plugin output (status line, long output,
 * perfdata), a perfdata formatter, and threshold ranges with the monitoring-plugins semantics. Used by
 * the legacy and command checks, by SNMP thresholds, and by passive results.
 */
export { formatPerfdata, parsePerfdata } from "./perfdata.js";
export { type PluginOutput, parsePluginOutput } from "./plugin-output.js";
export { type NagiosRange, parseRange, RangeSyntaxError } from "./range.js";
