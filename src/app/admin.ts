import { readFile } from "node:fs/promises";
import type { AdminCheck, AdminDeps, AdminHistory, ApiAudit } from "../api/index.js";
import type { AuditLog } from "../audit/index.js";
import { evalBudget, loadConfigInWorker, planConfig } from "../config/index.js";
import type { Logger } from "../model/logger.js";
import { type Admission, BusyError, createAdmission } from "./admission.js";
import { writeFileAtomic } from "./atomic-write.js";
import type { LoadOutcome, Reloader } from "./reload.js";

export interface AdminWiring {
  /** -config; empty: none (then ApplyConfig has nowhere to write: `internal`). */
  readonly configPath: string;
  readonly profile: "" | "demo";
  readonly reloader: Reloader;
  readonly auditLog: AuditLog;
  readonly record: ApiAudit;
  readonly logger: Logger;
  /** Aborted when the server stops: a load in flight is ended. */
  readonly signal: AbortSignal;
  /** Who may evaluate a submitted document now (default: one at a time, eight waiting). */
  readonly admission?: Admission;
  /** The config history (docs/config-history.md), read from the event log's database. */
  readonly history?: AdminHistory;
}

/**
 * The AdminService's work, wired to the one loader (on a worker thread, as for SIGHUP) and the
 * one fan-out: ApplyConfig validates, writes the file and swaps inside one Reloader turn, so
 * ApplyConfig calls and SIGHUP reloads never interleave and the file written is always the
 * document that was validated. A submitted document is evaluated only once admitted (one at a
 * time, admission.ts), on a worker whose heap is limited by the document's budget
 * (config/eval-budget.ts): a document that needs more is rejected, and the server lives on.
 */
export function adminDeps(w: AdminWiring): AdminDeps {
  const file = w.configPath === "" ? "config.cue" : w.configPath;
  const admission = w.admission ?? createAdmission();
  const load = (text: string): Promise<LoadOutcome> =>
    loadConfigInWorker({
      file,
      text,
      digest: true,
      ...(w.profile === "" ? {} : { profile: w.profile }),
      signal: w.signal,
      maxHeapMb: evalBudget(Buffer.byteLength(text, "utf8")).heapMb,
    });
  const checked = async (text: string): Promise<AdminCheck & { outcome?: LoadOutcome }> => {
    let outcome: LoadOutcome;
    try {
      outcome = await admission.run(() => load(text));
    } catch (e) {
      if (e instanceof BusyError) return { ok: false, kind: "busy", message: e.message };
      return { ok: false, kind: "error", message: (e as Error).message };
    }
    if (!outcome.ok) return { ok: false, kind: "rejected", diagnostics: outcome.diagnostics };
    return { ok: true, outcome };
  };
  return {
    async validate(text) {
      const { outcome: _, ...check } = await checked(text);
      return check;
    },
    async apply(text, by) {
      if (w.configPath === "") {
        return {
          ok: false,
          kind: "error",
          message: "lookout was started without -config: there is no file to write",
        };
      }
      let digest: string | undefined;
      let result: Awaited<ReturnType<Reloader["reload"]>>;
      try {
        // Admitted before its Reloader turn: a refused ApplyConfig never holds up a SIGHUP.
        result = await admission.run(() =>
          w.reloader.reload(
            "api",
            async () => {
              const outcome = await load(text);
              if (outcome.ok) {
                // Written before the swap: a crash in between restarts with the new document, which
                // is what the caller was told is served.
                await writeFileAtomic(w.configPath, text);
                digest = outcome.digest;
              }
              return outcome;
            },
            // The config history's entry: who, and the text (the core records it with the apply).
            { ...by, text },
          ),
        );
      } catch (e) {
        if (e instanceof BusyError) return { ok: false, kind: "busy", message: e.message };
        throw e;
      }
      if (result.ok) return digest === undefined ? { ok: true } : { ok: true, digest };
      switch (result.kind) {
        case "rejected":
          return { ok: false, kind: "rejected", diagnostics: result.diagnostics };
        case "error":
          return { ok: false, kind: "error", message: "the reload failed (see the reload log)" };
        default: {
          const never: never = result.kind;
          throw new Error(`unknown reload result ${String(never)}`);
        }
      }
    },
    async read() {
      if (w.configPath === "") return "";
      return readFile(w.configPath, "utf8");
    },
    async plan(text) {
      const c = await checked(text);
      if (!c.ok) return c;
      if (c.outcome === undefined || !c.outcome.ok) return { ok: true, sections: [] };
      return { ok: true, sections: planConfig(w.reloader.current, c.outcome.config) };
    },
    async compare(from, to) {
      // One admission for both: the two evaluations of one comparison never interleave with others.
      let outcomes: [LoadOutcome, LoadOutcome];
      try {
        outcomes = await admission.run(
          async (): Promise<[LoadOutcome, LoadOutcome]> => [await load(from), await load(to)],
        );
      } catch (e) {
        if (e instanceof BusyError) return { ok: false, kind: "busy", message: e.message };
        return { ok: false, kind: "error", message: (e as Error).message };
      }
      const [a, b] = outcomes;
      if (!a.ok || !b.ok) {
        const problems = [
          ...(a.ok ? [] : a.diagnostics.map((d) => ({ ...d, message: `from_version: ${d.message}` }))),
          ...(b.ok ? [] : b.diagnostics.map((d) => ({ ...d, message: `to_version: ${d.message}` }))),
        ];
        return { ok: false, kind: "rejected", diagnostics: problems };
      }
      return { ok: true, sections: planConfig(a.config, b.config) };
    },
    ...(w.history === undefined ? {} : { history: w.history }),
    audit: (sinceMs, limit) => w.auditLog.list(sinceMs, limit),
    record: w.record,
    logger: w.logger,
  };
}
