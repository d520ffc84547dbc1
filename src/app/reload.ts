import { Counter, Gauge, type Registry } from "prom-client";
import type { Config } from "../model/config.js";
import type { Logger } from "../model/logger.js";
import { type LongestTask, watchLongestTask } from "./task-watch.js";

/** One problem in a rejected document, at its position (the reference's ConfigDiagnostic). */
export interface Diagnostic {
  readonly message: string;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** How many places have the problem, when more than one (a template's mistake; config/instances.ts). */
  readonly instances?: number;
}

export type LoadOutcome =
  | {
      readonly ok: true;
      readonly config: Config;
      /** What identifies the document (sha256 of its text), so consumers can skip re-hashing it. */
      readonly digest?: string;
    }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

/** A component that follows the running configuration: the scheduler, the core, the sinks, ... */
export interface ConfigConsumer {
  readonly name: string;
  /**
   * Called with every new config, in registration order, one reload at a time; `reload` says
   * where it came from and what it replaces (the config history's entry is made of it).
   */
  applyConfig(config: Config, digest?: string, reload?: ReloadInfo): void | Promise<void>;
}

export type ReloadSource = "startup" | "sighup" | "api" | "replication";

/** Who asked for a reload (the API's caller, or a rollback's version), and the document when known. */
export interface ReloadNote {
  /** The principal's name (API calls). */
  readonly by?: string;
  /** RollbackConfig: the version gone back to. */
  readonly rollbackOf?: number;
  /** The document's text, when the caller has it (ApplyConfig, RollbackConfig). */
  readonly text?: string;
}

/** What a consumer is told of the reload that hands it a config. */
export interface ReloadInfo extends ReloadNote {
  readonly source: ReloadSource;
  /** The config it replaces. */
  readonly previous: Config;
}

export interface ReloaderOptions {
  /** Reads and loads the served document: the one loader used by startup, SIGHUP and the API. */
  readonly load: () => Promise<LoadOutcome>;
  readonly logger: Logger;
  readonly metrics: Registry;
}

/**
 * The one reload fan-out. SIGHUP and ApplyConfig both go through `reload`: the document is loaded
 * and validated first; only a valid config is swapped in (atomically: `current` changes in one
 * assignment) and handed to every consumer. A rejected document changes nothing and its
 * diagnostics are logged. Reloads never overlap: a second request waits for the first; SIGHUPs
 * that arrive while one waits its turn are answered by it.
 */
export class Reloader {
  #current: Config;
  readonly #consumers: ConfigConsumer[] = [];
  readonly #o: ReloaderOptions;
  #queue: Promise<unknown> = Promise.resolve();
  /** A SIGHUP reload queued that has not started yet: later SIGHUPs share it. */
  #waitingHup: Promise<ReloadResult> | undefined;
  readonly #total: Counter<"result">;
  readonly #coalesced: Counter;
  readonly #lastSuccess: Gauge;
  readonly #lastSuccessTime: Gauge;

  constructor(initial: Config, o: ReloaderOptions) {
    this.#current = initial;
    this.#o = o;
    this.#total = new Counter({
      name: "lookout_config_reloads_total",
      help: "Configuration reloads by result (success, rejected, error).",
      labelNames: ["result"],
      registers: [o.metrics],
    });
    for (const result of ["success", "rejected", "error"]) this.#total.inc({ result }, 0);
    this.#coalesced = new Counter({
      name: "lookout_config_reloads_coalesced_total",
      help: "SIGHUPs answered by a reload that was already waiting its turn (it reads the file when it runs).",
      registers: [o.metrics],
    });
    this.#lastSuccess = new Gauge({
      name: "lookout_config_last_reload_success",
      help: "Whether the last configuration reload attempt succeeded (1) or not (0).",
      registers: [o.metrics],
    });
    this.#lastSuccess.set(1);
    this.#lastSuccessTime = new Gauge({
      name: "lookout_config_last_reload_success_timestamp_seconds",
      help: "When the configuration was last loaded successfully.",
      registers: [o.metrics],
    });
    this.#lastSuccessTime.setToCurrentTime();
  }

  /** The running configuration. */
  get current(): Config {
    return this.#current;
  }

  /** Adds a consumer, built with the current config; it receives every later one. */
  register(consumer: ConfigConsumer): void {
    this.#consumers.push(consumer);
  }

  /**
   * Loads the document and, when it is valid, swaps it in and fans it out. Resolves with the
   * outcome; never rejects (a failing consumer is logged and reported as `error`).
   */
  reload(
    source: ReloadSource,
    load: () => Promise<LoadOutcome> = this.#o.load,
    note: ReloadNote = {},
  ): Promise<ReloadResult> {
    // A SIGHUP reads the served file when its turn comes, so one that waits answers every SIGHUP
    // after it too: a signal storm queues at most one reload, and an ApplyConfig waits behind at
    // most that one, not behind every signal sent meanwhile.
    const hup = source === "sighup" && load === this.#o.load;
    if (hup && this.#waitingHup !== undefined) {
      this.#coalesced.inc();
      return this.#waitingHup;
    }
    const run: Promise<ReloadResult> = this.#queue.then(() => {
      if (this.#waitingHup === run) this.#waitingHup = undefined;
      return this.#reload(source, load, note);
    });
    if (hup) this.#waitingHup = run;
    this.#queue = run;
    return run;
  }

  async #reload(
    source: ReloadSource,
    load: () => Promise<LoadOutcome>,
    note: ReloadNote,
  ): Promise<ReloadResult> {
    const log = this.#o.logger.child({ source });
    // What the reload cost this thread's event loop: the server's answers wait for its longest turn.
    const watch = watchLongestTask();
    let outcome: LoadOutcome;
    const started = performance.now();
    try {
      outcome = await load();
    } catch (e) {
      return this.#fail(log, "config reload failed", e, watch.stop());
    }
    // How long reading, evaluating and checking took: what a larger fleet makes operators wait for.
    const loadMs = Math.round(performance.now() - started);
    if (!outcome.ok) {
      this.#total.inc({ result: "rejected" });
      this.#lastSuccess.set(0);
      for (const d of outcome.diagnostics) {
        const many = d.instances === undefined ? {} : { instances: d.instances };
        log.error("config rejected", {
          file: d.file,
          line: d.line,
          column: d.column,
          problem: d.message,
          ...many,
        });
      }
      log.warn("config reload rejected; the running config keeps serving", {
        problems: outcome.diagnostics.length,
        loadMs,
        ...longestTaskFields(watch.stop()),
      });
      return { ok: false, kind: "rejected", diagnostics: outcome.diagnostics };
    }
    const info: ReloadInfo = { ...note, source, previous: this.#current };
    this.#current = outcome.config;
    // How long each part took to take the config (wall time, in order): after the load, what a new
    // check's first run waits for.
    const applyMs: Record<string, number> = {};
    for (const c of this.#consumers) {
      const t = performance.now();
      try {
        await c.applyConfig(outcome.config, outcome.digest, info);
      } catch (e) {
        return this.#fail(log, `config consumer ${c.name} failed`, e, watch.stop());
      }
      applyMs[c.name] = Math.round(performance.now() - t);
    }
    this.#total.inc({ result: "success" });
    this.#lastSuccess.set(1);
    this.#lastSuccessTime.setToCurrentTime();
    log.info("config reloaded", {
      hosts: outcome.config.hosts.size,
      loadMs,
      applyMs,
      ...longestTaskFields(watch.stop()),
      consumers: this.#consumers.map((c) => c.name),
    });
    return { ok: true };
  }

  #fail(log: Logger, msg: string, e: unknown, longest: LongestTask): ReloadResult {
    this.#total.inc({ result: "error" });
    this.#lastSuccess.set(0);
    log.error(msg, { error: e, ...longestTaskFields(longest) });
    return { ok: false, kind: "error", diagnostics: [] };
  }
}

export type ReloadResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly kind: "rejected" | "error"; readonly diagnostics: readonly Diagnostic[] };

/**
 * The log fields of a reload's longest event-loop turn on the server's main thread: wall time, and
 * the thread's own CPU time (what its work cost, whatever else the machine ran meanwhile).
 */
function longestTaskFields(t: LongestTask): { longestTaskMs: number; longestTaskCpuMs?: number } {
  return t.cpuMs === undefined ? { longestTaskMs: t.ms } : { longestTaskMs: t.ms, longestTaskCpuMs: t.cpuMs };
}
