import { readFile } from "node:fs/promises";
import { type Identities, loadIdentities, NO_IDENTITIES } from "../auth/index.js";
import { type ConfigDiagnostic, formatDiagnostic } from "../config/index.js";
import type { Logger } from "../model/logger.js";

/**
 * The identities document named by -auth-config, as served: loaded at start (a rejected document
 * refuses to start) and again on SIGHUP, where a rejected document is logged with its diagnostics
 * and the identities in force keep serving.
 */
export class IdentitiesFile {
  #current: Identities = NO_IDENTITIES;
  readonly #path: string;
  readonly #logger: Logger;

  private constructor(path: string, logger: Logger) {
    this.#path = path;
    this.#logger = logger;
  }

  /** Loads the document; rejects with its diagnostics as lines (`file:line:column: message`). */
  static async open(path: string, logger: Logger): Promise<IdentitiesFile> {
    const f = new IdentitiesFile(path, logger);
    const r = await f.#load();
    if (!r.ok) throw new Error(r.diagnostics.map(formatDiagnostic).join("\n"));
    return f;
  }

  /** The identities in force. */
  get current(): Identities {
    return this.#current;
  }

  /** Reloads the document (SIGHUP); a rejected one changes nothing. */
  async reload(): Promise<boolean> {
    const r = await this.#load();
    if (r.ok) {
      this.#logger.info("identities reloaded", { identities: this.#current.byName.size });
      return true;
    }
    for (const d of r.diagnostics) {
      this.#logger.error("identities rejected", {
        file: d.file,
        line: d.line,
        column: d.column,
        problem: d.message,
      });
    }
    this.#logger.warn("identities reload rejected; the identities in force keep serving", {
      problems: r.diagnostics.length,
    });
    return false;
  }

  async #load(): Promise<{ ok: true } | { ok: false; diagnostics: readonly ConfigDiagnostic[] }> {
    let text: string;
    try {
      text = await readFile(this.#path, "utf8");
    } catch (e) {
      return {
        ok: false,
        diagnostics: [
          { message: `cannot read: ${(e as Error).message}`, file: this.#path, line: 0, column: 0 },
        ],
      };
    }
    const r = loadIdentities(this.#path, text);
    if (!r.ok) return r;
    this.#current = r.identities;
    return { ok: true };
  }
}
