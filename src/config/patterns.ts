/**
 * The regular expressions that the schema (schema.cue) and the runtime both enforce. The runtime
 * uses these copies (selectors, decode); `patterns.test.ts` pins each one against the text of
 * schema.cue so the two can never drift apart.
 */
import { LABEL_KEY_PATTERN, LABEL_VALUE_PATTERN } from "../model/selector.js";

export { LABEL_KEY_PATTERN, LABEL_VALUE_PATTERN };

/** `#Vars` keys: referenced in macros as `$_HOST<KEY>$` / `$_SERVICE<KEY>$`. */
export const VARS_KEY_PATTERN = /^[A-Z][A-Z0-9_]*$/;
/** `#Resources` keys: `$USER1$` … as in Nagios' resource.cfg. */
export const RESOURCES_KEY_PATTERN = /^USER[0-9]+$/;
/** Keys of the top-level `sinks` map. */
export const SINK_KEY_PATTERN = /^[a-z][a-z0-9_-]*$/;
/** `clickhouse.table`. */
export const CLICKHOUSE_TABLE_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** `#Window.start`: 00:00 … 23:59. */
export const WINDOW_START_PATTERN = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;
/** `#Window.end`: as start, but the hour may be 24 (only 24:00 survives the semantic check). */
export const WINDOW_END_PATTERN = /^([01][0-9]|2[0-4]):[0-5][0-9]$/;
/** `host:port` (tcp and dns checks); an IPv6 host is bracketed, `[::1]:53`. */
export const HOST_PORT_PATTERN = /^(\[[^\]\s]+\]|[^\s:[\]]+):[0-9]{1,5}$/;
/** An `http` check's `expect_status` range, `200-299`. */
export const STATUS_RANGE_PATTERN = /^[1-5][0-9][0-9]-[1-5][0-9][0-9]$/;
/** A Go `time.Duration` string: `0`, or one or more `<number><unit>` with an optional sign. */
export const DURATION_PATTERN = /^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$/;

/**
 * Every pattern above, keyed by the name of the hidden field that holds it in schema.cue
 * (`_patterns: {label_key: "..."}`); the pinning test compares them one by one.
 */
export const SCHEMA_PATTERNS: Readonly<Record<string, RegExp>> = {
  label_key: LABEL_KEY_PATTERN,
  label_value: LABEL_VALUE_PATTERN,
  vars_key: VARS_KEY_PATTERN,
  resources_key: RESOURCES_KEY_PATTERN,
  sink_key: SINK_KEY_PATTERN,
  clickhouse_table: CLICKHOUSE_TABLE_PATTERN,
  window_start: WINDOW_START_PATTERN,
  window_end: WINDOW_END_PATTERN,
  host_port: HOST_PORT_PATTERN,
  status_range: STATUS_RANGE_PATTERN,
  duration: DURATION_PATTERN,
};
