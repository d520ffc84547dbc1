/**
 * Check states as Nagios and Icinga 2 name them. A service result's exit status maps 1:1 onto a
 * service state; a host result maps 0/1 to UP and 2/3 to DOWN (WARNING counts as UP, as in Nagios),
 * and a DOWN host whose parents are all unreachable or down becomes UNREACHABLE.
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
