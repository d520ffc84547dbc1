import { create } from "@bufbuild/protobuf";
import { type Timestamp, timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { AuditEntry } from "../audit/index.js";
import type { Role } from "../auth/index.js";
import { type PlanSection, unifiedDiff } from "../config/index.js";
import type { Logger } from "../model/logger.js";
import { type ConfigHistory, type ConfigVersion, documentSha256 } from "../store/index.js";
import type { ApiAudit } from "./api-audit.js";
import { type Caller, callerKey } from "./caller.js";
import {
  type AdminService,
  type ConfigVersion as ConfigVersionMessage,
  ConfigVersionSchema,
} from "./gen/svc/v1/admin_service_pb.js";
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

/** Who applies a document: the caller's name, and for a rollback the version gone back to. */
export interface AdminApplyBy {
  readonly by: string;
  readonly rollbackOf?: number;
}

/** The config history as the admin service reads it (store/config-versions.ts). */
export type AdminHistory = Pick<ConfigHistory, "list" | "get" | "text" | "newest">;

/** What the admin service does its work with; the app wires these to the loader and the Reloader. */
export interface AdminDeps {
  /** Runs a document through the reload loader (and the -config-profile); writes nothing. */
  validate(cue: string): Promise<AdminCheck>;
  /**
   * Validates, rewrites the -config file atomically and swaps through the one reload fan-out,
   * serialized with SIGHUP. A rejected document changes nothing. `by` goes into the config history.
   */
  apply(cue: string, by?: AdminApplyBy): Promise<AdminCheck & { readonly digest?: string }>;
  /** The served -config file's text. Rejects when it cannot be read. */
  read(): Promise<string>;
  /** What applying the document would change (or why it is rejected). */
  plan(cue: string): Promise<AdminCheck & { readonly sections?: readonly PlanSection[] }>;
  /** What replacing document `from` with `to` changes, each loaded as by ValidateConfig. */
  compare(from: string, to: string): Promise<AdminCheck & { readonly sections?: readonly PlanSection[] }>;
  /** The config history (docs/config-history.md); absent: none is kept (its RPCs are `unimplemented`). */
  readonly history?: AdminHistory;
  /** Audit records at or after `sinceMs`, newest first, at most `limit`. */
  audit(sinceMs: number | undefined, limit: number): AuditEntry[];
  /** Where ApplyConfig calls are audited. */
  readonly record: ApiAudit;
  readonly logger: Logger;
}

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

/** A ListConfigVersions page token: the version the next page starts below. */
const PAGE_TOKEN = /^before:([1-9][0-9]{0,14})$/;

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
  /** Applies a document as ApplyConfig does, and audits the call (its outcome and digest). */
  const applyAudited = async (
    cue: string,
    caller: Caller,
    rpc: string,
    shown: Record<string, unknown>,
    by: AdminApplyBy,
  ): Promise<void> => {
    let check: Awaited<ReturnType<AdminDeps["apply"]>>;
    try {
      check = await deps.apply(cue, by);
      answer(check, "applying the document");
    } catch (e) {
      deps.record.call(caller, rpc, shown, e);
      throw e;
    }
    deps.record.call(caller, rpc, check.digest === undefined ? shown : { ...shown, Sha256: check.digest });
  };
  /** Reads the history; a server that keeps none is `unimplemented`, a failed read `internal`. */
  const readHistory = <T>(f: (h: AdminHistory) => T): T => {
    const h = deps.history;
    if (h === undefined) throw new ConnectError("this server keeps no config history", Code.Unimplemented);
    try {
      return f(h);
    } catch (e) {
      deps.logger.error("reading the config history failed", { error: e });
      throw new ConnectError("reading the config history failed", Code.Internal);
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
      await applyAudited(cue, caller, rpc, shown, { by: byOf(caller) });
      return {};
    },
    async getConfig(req) {
      if (req.version !== undefined) {
        const n = versionNumber(req.version);
        const text = n === undefined ? undefined : readHistory((h) => h.text(n));
        if (text === undefined) throw unknownVersion(req.version);
        return { cue: text };
      }
      try {
        return { cue: await deps.read() };
      } catch (e) {
        deps.logger.error("reading the served config failed", { error: e });
        throw new ConnectError("reading the served config failed", Code.Internal);
      }
    },
    listConfigVersions(req) {
      const size = req.pageSize <= 0 ? DEFAULT_LIMIT : Math.min(req.pageSize, MAX_LIMIT);
      let below: number | undefined;
      if (req.pageToken !== "") {
        const m = PAGE_TOKEN.exec(req.pageToken);
        if (m === null) throw new ConnectError("page_token is malformed", Code.InvalidArgument);
        below = Number(m[1]);
      }
      const rows = readHistory((h) => h.list(below, size + 1));
      const page = rows.slice(0, size);
      const last = page[page.length - 1];
      return {
        versions: page.map(versionMessage),
        nextPageToken: rows.length > size && last !== undefined ? `before:${last.version}` : "",
      };
    },
    async diffConfig(req) {
      if (req.fromVersion === undefined) {
        throw new ConnectError("from_version is required", Code.InvalidArgument);
      }
      const from = versionNumber(req.fromVersion);
      const fromText = from === undefined ? undefined : readHistory((h) => h.text(from));
      if (from === undefined || fromText === undefined) throw unknownVersion(req.fromVersion);
      let to: number | undefined;
      if (req.toVersion === undefined) {
        to = readHistory((h) => h.newest())?.version;
        if (to === undefined) throw new ConnectError("no config version is recorded", Code.NotFound);
      } else to = versionNumber(req.toVersion);
      const target = to;
      const toText = target === undefined ? undefined : readHistory((h) => h.text(target));
      if (target === undefined || toText === undefined) throw unknownVersion(req.toVersion ?? 0n);
      const unified = unifiedDiff(fromText, toText, { from: `v${from}`, to: `v${target}` });
      const check = await deps.compare(fromText, toText);
      if (!check.ok && check.kind === "rejected") {
        // The text diff still answers; the object diff needs both documents to load.
        return { unified, sections: [], diagnostics: check.diagnostics.map((d) => ({ ...d })) };
      }
      answer(check, "comparing the versions");
      return { unified, sections: (check.sections ?? []).map(sectionMessage), diagnostics: [] };
    },
    async rollbackConfig(req, ctx: HandlerContext) {
      const caller = ctx.values.get(callerKey);
      const rpc = `/${ctx.service.typeName}/${ctx.method.name}`;
      if (req.version === undefined) {
        const e = new ConnectError("version is required", Code.InvalidArgument);
        deps.record.call(caller, rpc, { Type: "RollbackConfig" }, e);
        throw e;
      }
      const n = versionNumber(req.version);
      const text = n === undefined ? undefined : readHistory((h) => h.text(n));
      if (n === undefined || text === undefined) {
        const e = unknownVersion(req.version);
        deps.record.call(caller, rpc, { Type: "RollbackConfig", Version: String(req.version) }, e);
        throw e;
      }
      const newest = readHistory((h) => h.newest())?.version ?? 0;
      const shown = { Type: "RollbackConfig", Version: n, Bytes: Buffer.byteLength(text) };
      await applyAudited(text, caller, rpc, shown, { by: byOf(caller), rollbackOf: n });
      // Applies are serialized and the version is written before the apply answers: a newer one
      // naming this document is this rollback's (none: it was in force already).
      const after = readHistory((h) => h.newest());
      const recorded =
        after !== undefined && after.version > newest && after.sha256 === documentSha256(text)
          ? after.version
          : 0;
      return { version: BigInt(recorded) };
    },
    async planConfig(req) {
      const check = await deps.plan(required(req.cue));
      answer(check, "planning the document");
      return { sections: (check.sections ?? []).map(sectionMessage) };
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

/** Who the history names for an API call: the principal, or "api" for a caller without one. */
function byOf(caller: Caller): string {
  return caller.principal?.name ?? "api";
}

/** A requested version as a number, or undefined when no version can have it (0, beyond 2^53). */
function versionNumber(v: bigint): number | undefined {
  return v >= 1n && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : undefined;
}

function unknownVersion(v: bigint): ConnectError {
  return new ConnectError(`no config version ${v}`, Code.NotFound);
}

function versionMessage(v: ConfigVersion): ConfigVersionMessage {
  return create(ConfigVersionSchema, {
    version: BigInt(v.version),
    appliedAt: timestampFromMs(v.at),
    appliedBy: v.by,
    sha256: v.sha256,
    summary: v.summary,
    rollbackOf: BigInt(v.rollbackOf),
    sizeBytes: BigInt(v.bytes),
  });
}

function sectionMessage(x: PlanSection) {
  return {
    ...x,
    addedNames: [...x.addedNames],
    removedNames: [...x.removedNames],
    changedNames: [...x.changedNames],
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
