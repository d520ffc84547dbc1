/**
 * The `http` check type: one in-process GET of a URL, reporting status line, size and response
 * time like monitoring-plugins' check_http, with Icinga's default status-code mapping (2xx/3xx OK,
 * 4xx WARNING, 5xx CRITICAL) and full certificate verification for https. See docs/checks.md.
 */
export { createHttpChecker, type HttpCheckerOptions, stateForStatus } from "./http-checker.js";
