import { type Timestamp, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { API_TOKEN_PRINCIPAL } from "../auth/index.js";
import type { Core, CoreView } from "../core/core.js";
import type { SubmittedCommand } from "../core/validate.js";
import type { Target } from "../model/commands.js";
import type { Logger } from "../model/logger.js";
import { objectKey } from "../model/object-ref.js";
import { type ApiAudit, NO_AUDIT, resultsCommand } from "./api-audit.js";
import { type Caller, callerKey } from "./caller.js";
import type { CommandService } from "./gen/svc/v1/command_service_pb.js";
import type { Target as TargetMessage } from "./gen/svc/v1/types_pb.js";
import { toConnectError } from "./pipeline-errors.js";
import { reschedulePrecondition } from "./reschedule-precondition.js";
import {
  checkResult,
  createResultsIngest,
  describeRequests,
  prepareResults,
  type ResultsIngest,
} from "./results-ingest.js";

export interface CommandServiceDeps {
  /** The command pipeline; every RPC validates against it and enqueues into it. */
  readonly core: Pick<Core, "submit" | "submitEncoded" | "newDowntimeId" | "clock"> & {
    /** The projection, for the checks whose answer is already known (acknowledging an OK object). */
    readonly view?: Pick<CoreView, "projection"> & { readonly index?: CoreView["index"] };
  };
  readonly logger?: Logger;
  /** Where every call is audited, accepted or refused (none when absent). */
  readonly audit?: ApiAudit;
}

/** The fast-path submissions of the services made here, by service. */
const ingests = new WeakMap<object, ResultsIngest>();

/**
 * How the HTTP handler serves ProcessCheckResults and ProcessCheckResult of this service from the
 * request body, without the Connect router (src/api/ingest-fast-path.ts); undefined for a service
 * not made by createCommandService, or made without a pipeline.
 */
export function resultsIngestOf(
  service: Partial<ServiceImpl<typeof CommandService>>,
): ResultsIngest | undefined {
  return ingests.get(service);
}

/**
 * The write service. Every RPC validates its whole request synchronously against the config in
 * force (`invalid_argument` / `not_found` with a message naming the offending item; a batch is
 * all-or-nothing), then answers OK once the commands are durably enqueued — not yet applied.
 * Without deps (no pipeline wired) every RPC answers `unimplemented`: a write is never acknowledged
 * without being enqueued.
 */
export function createCommandService(deps?: CommandServiceDeps): Partial<ServiceImpl<typeof CommandService>> {
  if (deps === undefined) return {};
  const { core, logger } = deps;
  const audit = deps.audit ?? NO_AUDIT;
  /** Runs one call and audits it: `command` is what the record shows (capitalized keys). */
  const audited = async <T>(
    ctx: HandlerContext,
    command: () => Record<string, unknown>,
    run: () => Promise<T>,
  ): Promise<T> => {
    const caller = ctx.values.get(callerKey);
    const rpc = `/${ctx.service.typeName}/${ctx.method.name}`;
    let shown: Record<string, unknown> = { Type: ctx.method.name };
    try {
      shown = command();
      const out = await run();
      audit.call(caller, rpc, shown);
      return out;
    } catch (e) {
      audit.call(caller, rpc, shown, e);
      throw e;
    }
  };
  // Not async: the commands are serialized by the time core.submit returns, and nothing here keeps
  // them alive while the batch waits for the disk.
  const submit = (commands: SubmittedCommand[], what?: string): Promise<void> =>
    core.submit(commands).catch((e: unknown) => {
      throw toConnectError(e, logger, what);
    });
  const service: Partial<ServiceImpl<typeof CommandService>> = {
    processCheckResult(req, ctx) {
      return audited(
        ctx,
        () => resultsCommand("ProcessCheckResult", describeRequests([req])),
        async () => {
          await submit([checkResult(req, core.clock.now())]);
          return {};
        },
      );
    },
    processCheckResults(req, ctx) {
      const accepted = req.results.length;
      return audited(
        ctx,
        () => resultsCommand("ProcessCheckResults", describeRequests(req.results)),
        async () => {
          // Prepared and serialized in one go, and then let go of before waiting for the disk: a
          // batch whose objects outlive a young-generation collection is copied, and promoted on
          // the second, and under full-speed ingestion those copies were most of the reader
          // thread's GC pauses.
          const enqueued = submit(prepareResults(req.results, core.clock.now()), "results");
          req.results = [];
          await enqueued;
          return { accepted };
        },
      );
    },
    acknowledgeProblem(req, ctx) {
      let t: Target;
      const author = authorOf(ctx.values.get(callerKey), req.author);
      return audited(
        ctx,
        () => {
          t = target(req.target);
          return {
            Type: "AcknowledgeProblem",
            Target: targetJson(t),
            Sticky: req.sticky,
            Author: author,
            Comment: req.comment,
          };
        },
        async () => {
          precondition(core.view, t, "acknowledge");
          await submit([
            {
              type: "AcknowledgeProblem",
              target: t,
              sticky: req.sticky,
              author,
              comment: req.comment,
            },
          ]);
          return {};
        },
      );
    },
    removeAcknowledgement(req, ctx) {
      let t: Target;
      return audited(
        ctx,
        () => {
          t = target(req.target);
          return { Type: "RemoveAcknowledgement", Target: targetJson(t) };
        },
        async () => {
          await submit([{ type: "RemoveAcknowledgement", target: t }]);
          return {};
        },
      );
    },
    scheduleDowntime(req, ctx) {
      let cmd: Extract<SubmittedCommand, { type: "ScheduleDowntime" }>;
      return audited(
        ctx,
        () => {
          cmd = {
            type: "ScheduleDowntime",
            id: core.newDowntimeId(),
            target: target(req.target),
            start: time(req.start, "start"),
            end: time(req.end, "end"),
            author: authorOf(ctx.values.get(callerKey), req.author),
            comment: req.comment,
          };
          return {
            Type: "ScheduleDowntime",
            Id: cmd.id,
            Target: targetJson(cmd.target),
            Start: new Date(cmd.start).toISOString(),
            End: new Date(cmd.end).toISOString(),
            Author: cmd.author,
            Comment: cmd.comment,
          };
        },
        async () => {
          await submit([cmd]);
          return { id: cmd.id };
        },
      );
    },
    rescheduleCheck(req, ctx) {
      let cmd: Extract<SubmittedCommand, { type: "RescheduleCheck" }>;
      return audited(
        ctx,
        () => {
          cmd = {
            type: "RescheduleCheck",
            target: target(req.target),
            force: req.force,
            // No author field: the caller's principal, as the history shows it.
            author: authorOf(ctx.values.get(callerKey), ""),
            ...(req.at === undefined ? {} : { runAt: runAtOf(req.at) }),
          };
          return {
            Type: "RescheduleCheck",
            Target: targetJson(cmd.target),
            ...(cmd.runAt === undefined ? {} : { At: new Date(cmd.runAt).toISOString() }),
            Force: cmd.force,
          };
        },
        async () => {
          reschedulePrecondition(core.view?.index, cmd.target);
          await submit([cmd]);
          return {};
        },
      );
    },
    deleteDowntime(req, ctx) {
      return audited(
        ctx,
        () => ({ Type: "DeleteDowntime", Id: req.id }),
        async () => {
          await submit([{ type: "DeleteDowntime", id: req.id }]);
          return {};
        },
      );
    },
  };
  ingests.set(service, createResultsIngest(core, logger));
  return service;
}

/**
 * The author a command records, as Icinga Web does: someone signed in to the dashboard (a session)
 * is the author, whatever the request says; a bearer-token identity's given author is kept (a bot
 * may act for a person) and is its name when empty; without identities the given author is kept.
 */
export function authorOf(caller: Caller, given: string): string {
  const p = caller.principal;
  if (p === undefined || p.name === API_TOKEN_PRINCIPAL.name) return given;
  if (p.signedIn === true || given === "") return p.name;
  return given;
}

function target(t: TargetMessage | undefined): Target {
  if (t === undefined)
    throw new ConnectError("target is required: an object or a selector", Code.InvalidArgument);
  switch (t.kind.case) {
    case "object":
      return {
        object: {
          host: t.kind.value.host,
          ...(t.kind.value.service === undefined ? {} : { service: t.kind.value.service }),
        },
      };
    case "selector":
      return { selector: t.kind.value };
    case undefined:
      throw new ConnectError("target is required: an object or a selector", Code.InvalidArgument);
    default: {
      const never: never = t.kind;
      throw new ConnectError(`unknown target ${String(never)}`, Code.InvalidArgument);
    }
  }
}

/** A target as the audit record shows it, with capitalized keys. */
/**
 * Refuses, with `failed_precondition`, an acknowledgement the projection already shows cannot
 * take: of an object in an OK/UP state, or already acknowledged — as Icinga 2's API
 * answers 409. Only for one object: a selector's objects are each judged by the engine, which
 * skips those without a problem. The projection may lag the engine by a moment; what passes here
 * can still be rejected when applied (ListHistory then shows CommandRejected for the object).
 */
function precondition(view: Pick<CoreView, "projection"> | undefined, t: Target, what: "acknowledge"): void {
  if (view === undefined || !("object" in t)) return;
  const key = objectKey(t.object);
  const status = view.projection.status(key);
  // No record: PENDING, or not configured at all — the pipeline's own check answers not_found.
  if (status === undefined) return;
  const state = status.state;
  switch (state) {
    case "OK":
    case "UP":
    case "PENDING":
      throw new ConnectError(`nothing to ${what}: ${key} is ${state}`, Code.FailedPrecondition);
    default:
      if (status.acknowledgement !== undefined) {
        throw new ConnectError(`${key} is already acknowledged`, Code.FailedPrecondition);
      }
  }
}

function targetJson(t: Target): Record<string, unknown> {
  if ("selector" in t) return { Selector: t.selector };
  return {
    Object: { Host: t.object.host, ...(t.object.service === undefined ? {} : { Service: t.object.service }) },
  };
}

/** RescheduleCheck's `at`, refused when no date can show it. */
function runAtOf(t: Timestamp): number {
  const ms = timestampMs(t);
  if (!(ms >= 0 && ms <= 8.64e15)) throw new ConnectError("at is not a valid time", Code.InvalidArgument);
  return ms;
}

function time(t: Timestamp | undefined, field: string): number {
  if (t === undefined) throw new ConnectError(`${field} is required`, Code.InvalidArgument);
  return timestampMs(t);
}
