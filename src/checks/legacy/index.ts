/**
 * The `legacy` check type: run an existing Nagios/monitoring-plugins executable unchanged and read its
 * exit code and output by the Nagios plugin API.
 */
export { createLegacyChecker } from "./legacy-checker.js";
