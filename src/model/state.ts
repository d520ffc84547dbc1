/**
 * Check states as Nagios and Icinga 2 name them. A service result's exit status maps 1:1 onto a
 * service state; a host result maps 0/1 to UP and 2/3 to DOWN (WARNING counts as UP, as in Nagios),
 * and a DOWN host whose parents are all unreachable or down becomes UNREACHABLE. A passive host
 * result's status is a host state instead (passiveHostStatus), read into these terms where it enters.
 */

/** A Nagios plugin exit status: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN. */
export type ExitStatus = 0 | 1 | 2 | 3;

export const SERVICE_STATES = ["OK", "WARNING", "CRITICAL", "UNKNOWN"] as const;
export type ServiceState = (typeof SERVICE_STATES)[number];

export const HOST_STATES = ["UP", "DOWN", "UNREACHABLE"] as const;
export type HostState = (typeof HOST_STATES)[number];

/** PENDING: configured, no result yet. */
export type ObjectState = ServiceState | HostState | "PENDING";

export type StateType = "SOFT" | "HARD";

/** Whether a number is a valid plugin exit status. */
export function isExitStatus(n: number): n is ExitStatus {
  return n === 0 || n === 1 || n === 2 || n === 3;
}

/** The service state an exit status stands for. */
export function serviceStateOf(status: ExitStatus): ServiceState {
  return SERVICE_STATES[status] as ServiceState;
}

/** The host state an exit status stands for, before parents are considered. */
export function hostStateOf(status: ExitStatus): "UP" | "DOWN" {
  return status <= 1 ? "UP" : "DOWN";
}

/**
 * The plugin exit status a passive host result stands for. In Nagios' PROCESS_HOST_CHECK_RESULT
 * and Icinga 2's process-check-result a host's passive status is its state — 0 UP, 1 DOWN (Nagios:
 * 2 UNREACHABLE) — not a plugin's exit status, so 1 is DOWN, not WARNING-counted-as-UP. Any status
 * but 0 is a problem, DOWN or UNREACHABLE as the parents decide (docs/states.md, "Host results"):
 * only 1 reads differently, and becomes 2. Anything else comes back as it is (so an invalid status
 * stays invalid). Applied where passive results enter (the command file, the API), before they
 * are logged: the engine and the log keep the plugin's reading.
 */
export function passiveHostStatus(status: number): number {
  return status === 1 ? 2 : status;
}
