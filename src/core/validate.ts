import type { Command, Target } from "../model/commands.js";
import type { Config } from "../model/config.js";
import { RECORDED_EVENT_TYPES } from "../model/events.js";
import { parseSelector } from "../model/selector.js";
import { isExitStatus } from "../model/state.js";
import { RejectedError } from "../store/errors.js";
import type { ObjectIndex } from "../store/object-index.js";
import type { KnownObjects } from "../store/state-machine.js";
import type { PluginResultInput } from "./plugin-result.js";

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
}

/**
 * Checks a batch against the config in force before anything is enqueued; throws RejectedError for
 * the first bad command (its `index` says which), so a batch is all-or-nothing. Checks what can be
 * known at submit time: the objects exist, exit statuses and times are sane, selectors parse, the
 * downtime exists. Whether an acknowledgement finds a problem is the engine's call at apply time.
 */
export function validateCommands(commands: readonly SubmittedCommand[], ctx: ValidationContext): void {
  const objects = configObjects(ctx.index.config);
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

function validateOne(c: SubmittedCommand, ctx: ValidationContext, objects: KnownObjects): void {
  switch (c.type) {
    case "ProcessCheckResult": {
      const r = c.result;
      validateResult(objects, r.host, r.service, r.exitStatus, r.checkedAt);
      return;
    }
    case "AcknowledgeProblem":
    case "RemoveAcknowledgement":
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
      return;
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
): void {
  checkObject(objects, host, service);
  if (!isExitStatus(exitStatus)) {
    throw new RejectedError("invalid", `exit status ${exitStatus} is not one of 0, 1, 2, 3`);
  }
  if (!Number.isFinite(checkedAt) || checkedAt < 0) {
    throw new RejectedError("invalid", "checked_at is not a valid time");
  }
}

function checkTarget(objects: KnownObjects, t: Target): void {
  if ("object" in t) {
    checkObject(objects, t.object.host, t.object.service);
    return;
  }
  const parsed = parseSelector(t.selector);
  if (!parsed.ok) {
    throw new RejectedError(
      "invalid",
      `selector "${t.selector}", column ${parsed.column}: ${parsed.message}`,
    );
  }
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
