import { State, StateType } from "../../api/gen/svc/v1/types_pb.js";

/** A state as Nagios and Icinga name it. */
export function stateName(s: State): string {
  switch (s) {
    case State.PENDING:
      return "PENDING";
    case State.OK:
      return "OK";
    case State.WARNING:
      return "WARNING";
    case State.CRITICAL:
      return "CRITICAL";
    case State.UNKNOWN:
      return "UNKNOWN";
    case State.UP:
      return "UP";
    case State.DOWN:
      return "DOWN";
    case State.UNREACHABLE:
      return "UNREACHABLE";
    case State.UNSPECIFIED:
      return "—";
    default:
      return unreachable(s);
  }
}

/** Sort order of problems: the worst first (CRITICAL and DOWN), OK/UP and PENDING last. */
export function severity(s: State): number {
  switch (s) {
    case State.CRITICAL:
    case State.DOWN:
      return 6;
    case State.UNKNOWN:
      return 5;
    case State.WARNING:
      return 4;
    case State.UNREACHABLE:
      return 3;
    case State.PENDING:
      return 2;
    case State.OK:
    case State.UP:
      return 1;
    case State.UNSPECIFIED:
      return 0;
    default:
      return unreachable(s);
  }
}

/** Whether the state is a problem (an operator may acknowledge it). */
export function isProblem(s: State): boolean {
  return severity(s) >= 3;
}

export function stateTypeName(t: StateType): string {
  return t === StateType.HARD ? "hard" : t === StateType.SOFT ? "soft" : "";
}

/** "3m 12s", "2h 5m", "4d 1h": how long ago `ms` was, from `now`. */
export function since(ms: number | undefined, now: number): string {
  if (ms === undefined || ms === 0) return "—";
  let s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s`;
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  return `${m}m ${s}s`;
}

/** A local date and time, to the second. */
export function when(ms: number | undefined): string {
  if (ms === undefined || ms === 0) return "—";
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** An object's display key, `host` or `host!service` (as the API's object keys are written). */
export function objectKey(host: string, service: string | undefined): string {
  return service === undefined ? host : `${host}!${service}`;
}

/** The object page's address. */
export function objectHref(host: string, service: string | undefined): string {
  return `#/object/${encodeURIComponent(host)}${service === undefined ? "" : `/${encodeURIComponent(service)}`}`;
}

function unreachable(x: never): never {
  throw new Error(`unexpected ${String(x)}`);
}
