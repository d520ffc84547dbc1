import type { PerfDatum } from "../model/check-result.js";
import type { ContactConfig, HostConfig, ServiceConfig } from "../model/config.js";
import type { ObjectState, StateType } from "../model/state.js";
import { formatPerfdata } from "../nagios/perfdata.js";
import type { MacroResolver } from "./expand.js";
import { dateOf, durationOf, longDateTimeOf, timeOf } from "./format-time.js";

/**
 * What the engine knows about one object at the moment macros are expanded. Every field is
 * optional: a check runs with whatever the scheduler passes, a notification with the full state.
 */
export interface MacroObjectState {
  readonly state?: ObjectState;
  readonly stateType?: StateType;
  /** Current attempt, 1-based. */
  readonly attempt?: number;
  readonly output?: string;
  readonly longOutput?: string;
  readonly perfdata?: readonly PerfDatum[];
  /** Milliseconds since the epoch. */
  readonly lastCheck?: number;
  readonly lastStateChange?: number;
  readonly latencyMs?: number;
  readonly executionMs?: number;
  readonly ackAuthor?: string;
  readonly ackComment?: string;
}

/** The notification being sent, for the `$NOTIFICATION…$` macros. */
export interface MacroNotification {
  /** PROBLEM, RECOVERY, ACKNOWLEDGEMENT, FLAPPINGSTART, FLAPPINGSTOP, DOWNTIMESTART, CUSTOM … */
  readonly type: string;
  readonly author?: string;
  readonly comment?: string;
  /** How many notifications were sent for the current problem, this one included. */
  readonly number?: number;
}

/** Everything macro expansion can draw on. Only `host` and `now` are required. */
export interface MacroContext {
  readonly host: HostConfig;
  readonly service?: ServiceConfig;
  /** `Config.resources`, for `$USERn$`. */
  readonly resources?: Readonly<Record<string, string>>;
  /** The check's or contact's `args`, for `$ARGn$` (1-based). */
  readonly args?: readonly string[];
  /** Milliseconds since the epoch, from the injected clock. */
  readonly now: number;
  readonly hostState?: MacroObjectState;
  readonly serviceState?: MacroObjectState;
  readonly contact?: ContactConfig;
  readonly notification?: MacroNotification;
}

const STATE_IDS: Record<ObjectState, string> = {
  OK: "0",
  WARNING: "1",
  CRITICAL: "2",
  UNKNOWN: "3",
  UP: "0",
  DOWN: "1",
  UNREACHABLE: "2",
  PENDING: "",
};

const seconds = (ms: number | undefined): string => (ms === undefined ? "" : String(Math.floor(ms / 1000)));
const fixed = (ms: number | undefined): string => (ms === undefined ? "" : (ms / 1000).toFixed(3));
const str = (n: number | undefined): string => (n === undefined ? "" : String(n));

/**
 * The macros that describe one object (host or service), keyed by the suffix after HOST/SERVICE:
 * STATE → $HOSTSTATE$ / $SERVICESTATE$. Shared so the two families cannot drift apart.
 */
function objectMacro(suffix: string, s: MacroObjectState | undefined, now: number): string | undefined {
  switch (suffix) {
    case "STATE":
      return s?.state ?? "";
    case "STATEID":
      return s?.state === undefined ? "" : STATE_IDS[s.state];
    case "STATETYPE":
      return s?.stateType ?? "";
    case "ATTEMPT":
      return str(s?.attempt);
    case "OUTPUT":
      return s?.output ?? "";
    case "PERFDATA":
      return s?.perfdata === undefined ? "" : formatPerfdata(s.perfdata);
    case "DURATION":
      return s?.lastStateChange === undefined ? "" : durationOf(now - s.lastStateChange);
    case "DURATIONSEC":
      return s?.lastStateChange === undefined ? "" : seconds(now - s.lastStateChange);
    case "LATENCY":
      return fixed(s?.latencyMs);
    case "EXECUTIONTIME":
      return fixed(s?.executionMs);
    case "ACKAUTHOR":
      return s?.ackAuthor ?? "";
    case "ACKCOMMENT":
      return s?.ackComment ?? "";
    default:
      return undefined;
  }
}

function contactEmail(c: ContactConfig | undefined): string {
  if (c === undefined) return "";
  switch (c.type) {
    case "email":
      return c.address;
    case "command":
      return c.address;
    case "webhook":
    case "telegram":
      return "";
    default: {
      const never: never = c;
      return never;
    }
  }
}

const ARG = /^ARG([1-9][0-9]*)$/;
const USER = /^USER([1-9][0-9]*)$/;

/**
 * A resolver for every standard macro (docs/macros.md lists them) over one context. Known macros
 * whose data is absent expand to ""; unknown names give undefined, which expandMacros leaves as
 * written. Custom variables: `$_HOSTxxx$` reads `host.vars.xxx`, `$_SERVICExxx$` reads
 * `service.vars.xxx`; an unset variable is "".
 */
export function createMacroResolver(ctx: MacroContext): MacroResolver {
  const { host, service, now } = ctx;
  return (name) => {
    switch (name) {
      case "HOSTNAME":
      case "HOSTDISPLAYNAME":
      case "HOSTALIAS":
        return host.name;
      case "HOSTADDRESS":
        return host.address;
      case "HOSTZONE":
        return host.zone;
      case "SERVICEDESC":
      case "SERVICEDISPLAYNAME":
        return service?.name ?? "";
      case "MAXHOSTATTEMPTS":
        return str(host.check.maxAttempts);
      case "MAXSERVICEATTEMPTS":
        return str(service?.check.maxAttempts);
      case "LONGHOSTOUTPUT":
        return ctx.hostState?.longOutput ?? "";
      case "LONGSERVICEOUTPUT":
        return ctx.serviceState?.longOutput ?? "";
      case "LASTHOSTCHECK":
        return seconds(ctx.hostState?.lastCheck);
      case "LASTSERVICECHECK":
        return seconds(ctx.serviceState?.lastCheck);
      case "LASTHOSTSTATECHANGE":
        return seconds(ctx.hostState?.lastStateChange);
      case "LASTSERVICESTATECHANGE":
        return seconds(ctx.serviceState?.lastStateChange);
      case "TIMET":
        return seconds(now);
      case "LONGDATETIME":
        return longDateTimeOf(now);
      case "SHORTDATETIME":
        return `${dateOf(now)} ${timeOf(now)}`;
      case "DATE":
        return dateOf(now);
      case "TIME":
        return timeOf(now);
      case "CONTACTNAME":
      case "CONTACTALIAS":
        return ctx.contact?.name ?? "";
      case "CONTACTEMAIL":
        return contactEmail(ctx.contact);
      case "NOTIFICATIONTYPE":
        return ctx.notification?.type ?? "";
      case "NOTIFICATIONAUTHOR":
      case "NOTIFICATIONAUTHORNAME":
        return ctx.notification?.author ?? "";
      case "NOTIFICATIONCOMMENT":
        return ctx.notification?.comment ?? "";
      case "NOTIFICATIONNUMBER":
        return str(ctx.notification?.number);
    }
    if (name.startsWith("_HOST")) return host.vars[name.slice(5)] ?? "";
    if (name.startsWith("_SERVICE")) return service?.vars[name.slice(8)] ?? "";
    let m = ARG.exec(name);
    if (m !== null) return ctx.args?.[Number(m[1]) - 1] ?? "";
    m = USER.exec(name);
    if (m !== null) return ctx.resources?.[name] ?? "";
    if (name.startsWith("HOST")) return objectMacro(name.slice(4), ctx.hostState, now);
    if (name.startsWith("SERVICE")) return objectMacro(name.slice(7), ctx.serviceState, now);
    return undefined;
  };
}
