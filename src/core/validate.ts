import type { Command, Target } from "../model/commands.js";
import type { Config } from "../model/config.js";
import { RECORDED_EVENT_TYPES } from "../model/events.js";
import { OBJECT_SWITCHES } from "../model/object-flags.js";
import { isExitStatus } from "../model/state.js";
import { RejectedError } from "../store/errors.js";
import type { ObjectIndex } from "../store/object-index.js";
import type { KnownObjects } from "../store/state-machine.js";
import type { PluginResultInput } from "./plugin-result.js";
import { selectorPositions } from "./precheck.js";

/** Removes `at` from each member of a union (Omit alone would collapse the union). */
type WithoutAt<C> = C extends Command ? Omit<C, "at"> : never;

/**
 * A command as submitters hand it to Core: everything but `at`, which Core stamps. ApplyConfig and
 * Tick are not submitted by clients (Core issues them itself).
 */
export type CommandInput = WithoutAt<Exclude<Command, { type: "ApplyConfig" | "Tick" }>>;

/** What Core.submit takes: commands, and check results whose plugin output is still to be parsed. */
export type SubmittedCommand = CommandInput | PluginResultInput;

/** What validation looks at besides the config: downtimes that exist or were issued. */
export interface ValidationContext {
  readonly index: ObjectIndex;
  readonly now: number;
  /** Whether a downtime id exists (in the projection, or issued and not yet applied). */
  hasDowntime(id: string): boolean;
  /**
   * Whether an operator's comment id exists (in the projection, or issued and not yet applied); an
   * acknowledgement's comment is not one (it goes with its acknowledgement). Absent: not checked.
   */
  hasComment?(id: string): boolean;
  /** Whether an operator turned an object's passive checks off (the projection's view); absent: never. */
  passiveChecksOff?(host: string, service: string | undefined): boolean;
}

/**
 * Checks a batch against the config in force before anything is enqueued; throws RejectedError for
 * the first bad command (its `index` says which), so a batch is all-or-nothing. Checks what can be
 * known at submit time: the objects exist, exit statuses and times are sane, selectors parse, the
 * downtime exists. Whether an acknowledgement finds a problem is the engine's call at apply time.
 */
export function validateCommands(commands: readonly SubmittedCommand[], ctx: ValidationContext): void {
  const known = targetObjects(ctx.index);
  const off = ctx.passiveChecksOff;
  const objects: TargetObjects = off === undefined ? known : { ...known, passiveChecksOff: off };
  for (let i = 0; i < commands.length; i++) {
    try {
      validateOne(commands[i] as SubmittedCommand, ctx, objects);
    } catch (e) {
      if (e instanceof RejectedError) throw new RejectedError(e.reason, e.message, i);
      throw e;
    }
  }
}

/** The objects of a typed config, for validation. */
export function configObjects(config: Config): KnownObjects {
  const hosts = config.hosts;
  return {
    hasHost: (host) => hosts.has(host),
    hasService: (host, service) => hosts.get(host)?.services.has(service) ?? false,
  };
}

/** The configured objects, and which of them a selector matches (the index's, cached per selector). */
interface TargetObjects extends KnownObjects {
  readonly index: ObjectIndex;
}

function targetObjects(index: ObjectIndex): TargetObjects {
  return { ...configObjects(index.config), index };
}

function validateOne(c: SubmittedCommand, ctx: ValidationContext, objects: TargetObjects): void {
  switch (c.type) {
    case "ProcessCheckResult": {
      const r = c.result;
      validateResult(objects, r.host, r.service, r.exitStatus, r.checkedAt, r.source === "passive");
      return;
    }
    case "AcknowledgeProblem":
    case "RemoveAcknowledgement":
    case "SendCustomNotification":
      checkTarget(objects, c.target);
      return;
    case "RescheduleCheck":
      checkTarget(objects, c.target);
      if (c.runAt !== undefined && (!Number.isFinite(c.runAt) || c.runAt < 0)) {
        throw new RejectedError("invalid", "the time to run the check is not a valid time");
      }
      return;
    case "ScheduleDowntime":
      checkTarget(objects, c.target);
      if (!Number.isFinite(c.start) || !Number.isFinite(c.end)) {
        throw new RejectedError("invalid", "a downtime needs a start and an end");
      }
      if (c.end <= c.start) throw new RejectedError("invalid", "the downtime ends before it starts");
      if (c.end <= ctx.now) throw new RejectedError("invalid", "the downtime ends in the past");
      if (c.flexible === true && !(Number.isFinite(c.durationMs) && (c.durationMs as number) > 0)) {
        throw new RejectedError("invalid", "a flexible downtime needs a positive duration");
      }
      return;
    case "AddComment":
      checkObject(objects, c.object.host, c.object.service);
      if (c.comment.trim() === "") throw new RejectedError("invalid", "a comment needs text");
      return;
    case "DeleteComment": {
      if (c.id === "") throw new RejectedError("invalid", "a comment id is required");
      if (ctx.hasComment?.(c.id) === false) {
        throw new RejectedError("not_found", `comment "${c.id}" does not exist`);
      }
      return;
    }
    case "RecordEvents":
      if (!Array.isArray(c.events) || c.events.length === 0) {
        throw new RejectedError("invalid", "RecordEvents needs at least one event");
      }
      for (const e of c.events) {
        if (!RECORDED_EVENT_TYPES.has(e.type)) {
          throw new RejectedError("invalid", `RecordEvents cannot record a ${e.type} event`);
        }
      }
      return;
    case "SetObjectFlags":
      checkTarget(objects, c.target);
      if (!OBJECT_SWITCHES.some((s) => typeof c.flags[s] === "boolean")) {
        throw new RejectedError(
          "invalid",
          "set at least one of active_checks, passive_checks, notifications, flap_detection",
        );
      }
      return;
    case "DeleteDowntime":
      if (c.id === "") throw new RejectedError("invalid", "a downtime id is required");
      if (!ctx.hasDowntime(c.id)) throw new RejectedError("not_found", `downtime "${c.id}" does not exist`);
      return;
    default: {
      const never: never = c;
      throw new RejectedError("invalid", `unknown command ${(never as { type: string }).type}`);
    }
  }
}

/**
 * Checks one check result against the configured hosts (throws RejectedError): the rules for every
 * submitted result, wherever it is decoded — here for Core.submit, on the writer's thread for a
 * batch that arrives in its wire form (src/core/encoded-results.ts).
 */
export function validateResult(
  objects: KnownObjects,
  host: string,
  service: string | undefined,
  exitStatus: number,
  checkedAt: number,
  passive = true,
): void {
  checkObject(objects, host, service);
  if (passive && objects.passiveChecksOff?.(host, service) === true) {
    const key = service === undefined ? host : `${host}!${service}`;
    throw new RejectedError("failed_precondition", `passive checks of ${key} are disabled`);
  }
  if (!isExitStatus(exitStatus)) {
    throw new RejectedError("invalid", `exit status ${exitStatus} is not one of 0, 1, 2, 3`);
  }
  if (!Number.isFinite(checkedAt) || checkedAt < 0) {
    throw new RejectedError("invalid", "checked_at is not a valid time");
  }
}

/**
 * Checks a command's target: its object is configured, or its selector parses and matches at least
 * one configured object (`not_found` otherwise: the engine would refuse it, whatever the state).
 */
function checkTarget(objects: TargetObjects, t: Target): void {
  if ("object" in t) {
    checkObject(objects, t.object.host, t.object.service);
    return;
  }
  selectorPositions(objects.index, t.selector);
}

function checkObject(objects: KnownObjects, host: string, service: string | undefined): void {
  if (host === "") throw new RejectedError("invalid", "host is required");
  if (!objects.hasHost(host)) throw new RejectedError("not_found", `host "${host}" is not configured`);
  if (service === undefined) return;
  if (service === "") throw new RejectedError("invalid", "service, when given, must not be empty");
  if (!objects.hasService(host, service)) {
    throw new RejectedError("not_found", `service "${service}" is not configured on host "${host}"`);
  }
}
