import { create } from "@bufbuild/protobuf";
import { type Timestamp, timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { AuditEntry } from "../audit/index.js";
import type { Role } from "../auth/index.js";
import type { PlanSection } from "../config/index.js";
import type { Logger } from "../model/logger.js";
import type { ApiAudit } from "./api-audit.js";
import { callerKey } from "./caller.js";
import type { AdminService } from "./gen/svc/v1/admin_service_pb.js";
import {
  AuditOutcome,
  type AuditRecord,
  AuditRecordSchema,
  AuditSource,
  ConfigDiagnosticsSchema,
  Role as RoleEnum,
} from "./gen/svc/v1/types_pb.js";

/** One problem in a rejected document. */
export interface AdminDiagnostic {
  readonly message: string;
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * The result of checking a document: valid, rejected (with its problems), not admitted (another
 * document is being evaluated: `busy`), or the check failed.
 */
export type AdminCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly kind: "rejected"; readonly diagnostics: readonly AdminDiagnostic[] }
  | { readonly ok: false; readonly kind: "busy"; readonly message: string }
  | { readonly ok: false; readonly kind: "error"; readonly message: string };

/** What the admin service does its work with; the app wires these to the loader and the Reloader. */
export interface AdminDeps {
  /** Runs a document through the reload loader (and the -config-profile); writes nothing. */
  validate(cue: string): Promise<AdminCheck>;
  /**
   * Validates, rewrites the -config file atomically and swaps through the one reload fan-out,
   * serialized with SIGHUP. A rejected document changes nothing.
   */
  apply(cue: string): Promise<AdminCheck & { readonly digest?: string }>;
  /** The served -config file's text. Rejects when it cannot be read. */
  read(): Promise<string>;
  /** What applying the document would change (or why it is rejected). */
  plan(cue: string): Promise<AdminCheck & { readonly sections?: readonly PlanSection[] }>;
  /** Audit records at or after `sinceMs`, newest first, at most `limit`. */
  audit(sinceMs: number | undefined, limit: number): AuditEntry[];
  /** Where ApplyConfig calls are audited. */
  readonly record: ApiAudit;
  readonly logger: Logger;
}

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/**
 * The admin service (config validate/apply/read/plan, audit). Mounted only with -auth-config and
 * without -read-only, behind the admin role. Codes as the reference's Errors section says: a
 * rejected document is `invalid_argument` with a ConfigDiagnostics detail (also one over its
 * evaluation budget), a missing `cue` `invalid_argument` alone, a document not admitted while
 * another is evaluated `resource_exhausted`, anything else `internal` with no detail (the cause is logged, never
 * sent).
 */
export function createAdminService(deps?: AdminDeps): Partial<ServiceImpl<typeof AdminService>> {
  if (deps === undefined) return {};
  const required = (cue: string | undefined): string => {
    if (cue === undefined)
      throw new ConnectError("cue is required: the whole CUE document", Code.InvalidArgument);
    return cue;
  };
  const answer = (check: AdminCheck, what: string): void => {
    if (check.ok) return;
    switch (check.kind) {
      case "rejected":
        throw rejected(check.diagnostics);
      case "busy":
        throw new ConnectError(check.message, Code.ResourceExhausted);
      case "error":
        deps.logger.error(`${what} failed`, { error: check.message });
        throw new ConnectError(`${what} failed`, Code.Internal);
      default: {
        const never: never = check;
        throw new Error(`unknown outcome ${String(never)}`);
      }
    }
  };
  return {
    async validateConfig(req) {
      answer(await deps.validate(required(req.cue)), "validating the document");
      return {};
    },
    async applyConfig(req, ctx: HandlerContext) {
      const caller = ctx.values.get(callerKey);
      const rpc = `/${ctx.service.typeName}/${ctx.method.name}`;
      const cue = required(req.cue);
      // The document itself may hold secrets (vars, auth_pass): the record names it by digest.
      const shown = { Type: "ApplyConfig", Bytes: Buffer.byteLength(cue) };
      let check: Awaited<ReturnType<AdminDeps["apply"]>>;
      try {
        check = await deps.apply(cue);
        answer(check, "applying the document");
      } catch (e) {
        deps.record.call(caller, rpc, shown, e);
        throw e;
      }
      deps.record.call(caller, rpc, check.digest === undefined ? shown : { ...shown, Sha256: check.digest });
      return {};
    },
    async getConfig() {
      try {
        return { cue: await deps.read() };
      } catch (e) {
        deps.logger.error("reading the served config failed", { error: e });
        throw new ConnectError("reading the served config failed", Code.Internal);
      }
    },
    async planConfig(req) {
      const check = await deps.plan(required(req.cue));
      answer(check, "planning the document");
      return {
        sections: (check.sections ?? []).map((x) => ({
          ...x,
          addedNames: [...x.addedNames],
          removedNames: [...x.removedNames],
          changedNames: [...x.changedNames],
        })),
      };
    },
    listAuditRecords(req) {
      const limit = req.limit <= 0 ? DEFAULT_LIMIT : Math.min(req.limit, MAX_LIMIT);
      let entries: AuditEntry[];
      try {
        entries = deps.audit(
          req.since === undefined ? undefined : timestampMs(req.since as Timestamp),
          limit,
        );
      } catch (e) {
        deps.logger.error("reading the audit records failed", { error: e });
        throw new ConnectError("reading the audit records failed", Code.Internal);
      }
      return { records: entries.map(auditRecord) };
    },
  };
}

/** invalid_argument listing each problem at file:line:column, with the ConfigDiagnostics detail. */
function rejected(diagnostics: readonly AdminDiagnostic[]): ConnectError {
  const lines = diagnostics.map((d) => `${d.file}:${d.line}:${d.column}: ${d.message}`);
  return new ConnectError(`the document is rejected:\n${lines.join("\n")}`, Code.InvalidArgument, undefined, [
    {
      desc: ConfigDiagnosticsSchema,
      // The API's four fields only (a repeated problem's count is in its message).
      value: {
        diagnostics: diagnostics.map((d) => ({
          message: d.message,
          file: d.file,
          line: d.line,
          column: d.column,
        })),
      },
    },
  ]);
}

function roleEnum(r: Role): RoleEnum {
  switch (r) {
    case "viewer":
      return RoleEnum.VIEWER;
    case "operator":
      return RoleEnum.OPERATOR;
    case "admin":
      return RoleEnum.ADMIN;
    default: {
      const never: never = r;
      throw new Error(`unknown role ${String(never)}`);
    }
  }
}

function sourceEnum(s: AuditEntry["source"]): AuditSource {
  switch (s) {
    case "api":
      return AuditSource.API;
    case "extcmd":
      return AuditSource.EXTCMD;
    case "zone":
      return AuditSource.ZONE;
    default: {
      const never: never = s;
      throw new Error(`unknown audit source ${String(never)}`);
    }
  }
}

function auditRecord(e: AuditEntry): AuditRecord {
  return create(AuditRecordSchema, {
    at: timestampFromMs(e.at),
    source: sourceEnum(e.source),
    ...(e.principal === undefined
      ? {}
      : {
          principal: {
            name: e.principal.name,
            role: e.principal.role === undefined ? RoleEnum.UNSPECIFIED : roleEnum(e.principal.role),
          },
        }),
    peer: e.peer,
    rpc: e.rpc,
    commandJson: e.commandJson,
    outcome: e.outcome === "accepted" ? AuditOutcome.ACCEPTED : AuditOutcome.REJECTED,
    reason: e.reason,
  });
}
