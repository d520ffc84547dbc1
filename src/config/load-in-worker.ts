import { Worker } from "node:worker_threads";
import type { Config, HostConfig } from "../model/config.js";
import { freezeMap } from "./decode.js";
import type { ConfigDiagnostic } from "./diagnostic.js";
import { createConfigInterner } from "./intern.js";
import type { LoadConfigResult } from "./loader.js";
import type { ConfigProfile } from "./type-checks.js";

/** What the worker is started with (its workerData). */
export interface WorkerInput {
  readonly file: string;
  /** Undefined: the worker reads `file`. */
  readonly text: string | undefined;
  readonly digest: boolean;
  readonly profile: ConfigProfile | undefined;
  readonly listen: string | undefined;
  /** Hosts plus services per batch message. */
  readonly batchObjects: number;
}

/** Messages from the worker, in order: `hosts`* then `done`; or `rejected`; or `failed`. */
export type ToMain =
  | { readonly t: "hosts"; readonly hosts: readonly HostConfig[] }
  | { readonly t: "done"; readonly rest: Omit<Config, "hosts">; readonly digest?: string }
  | { readonly t: "rejected"; readonly diagnostics: readonly ConfigDiagnostic[] }
  | { readonly t: "failed"; readonly message: string };

export interface WorkerLoadInput {
  readonly file: string;
  /**
   * The document. Without it the worker reads `file` as UTF-8, so that neither the file's bytes nor
   * the text cross this thread; a file it cannot read is rejected with one diagnostic,
   * `cannot read: <reason>` at line 0, column 0.
   */
  readonly text?: string;
  /** Whether an accepted result carries `digest`: sha256 (hex) of the text's UTF-8, made on the worker. */
  readonly digest?: boolean;
  readonly profile?: ConfigProfile;
  /** The server's -listen, which the document reads as `_lookout.listen` (loader.ts). */
  readonly listen?: string;
  /**
   * Hosts plus services per message back (default 2,000): the main thread deserializes one
   * message at a time and serves other work in between.
   */
  readonly batchObjects?: number;
  /** Aborting terminates the worker; the promise then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * The worker's V8 heap limit in MB (default: V8's own). Past it the worker dies, while the
   * calling thread lives on, and the document is rejected with one diagnostic saying so.
   */
  readonly maxHeapMb?: number;
}

/** loadConfig's result, and the document's digest when it was asked for (WorkerLoadInput.digest). */
export type WorkerLoadResult =
  | { readonly ok: true; readonly config: Config; readonly digest?: string }
  | Extract<LoadConfigResult, { ok: false }>;

/**
 * loadConfig (loader.ts) on a worker thread, for the server's loads: evaluating a large fleet takes
 * seconds that must not stall the API or the scheduler during a reload, and the evaluation's memory
 * (which the engine would otherwise keep alive: its shared-leaf cache holds on to the last document) goes away with the worker. The result
 * is exactly loadConfig's: the same Config (structured-cloned back in batches, then frozen again
 * here, since a clone is neither frozen nor shares the frozen maps' prototype) or the same
 * diagnostics. The hosts' equal parts — checks, label sets, vars, repeated strings — are shared
 * across batches as they arrive (intern.ts): a clone copies every one of them, and at fleet scale
 * they are most of the Config. Rejects only when the worker itself fails (cannot start, runs out of memory, is
 * aborted); the document's problems are diagnostics. Each call runs in a fresh worker.
 */
export function loadConfigInWorker(input: WorkerLoadInput): Promise<WorkerLoadResult> {
  const data: WorkerInput = {
    file: input.file,
    text: input.text,
    digest: input.digest === true,
    profile: input.profile,
    listen: input.listen,
    batchObjects: input.batchObjects ?? 2000,
  };
  const { signal, maxHeapMb } = input;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const worker = new Worker(new URL("./load-worker.js", import.meta.url), {
      workerData: data,
      ...(maxHeapMb === undefined ? {} : { resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } }),
    });
    const hosts = new Map<string, HostConfig>();
    // Equal parts of hosts (checks, labels, vars, names) become one object across all batches.
    let interner = createConfigInterner();
    let settled = false;
    const onAbort = (): void => {
      settle(() => reject(signal?.reason));
      void worker.terminate();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      f();
    };
    worker.on("message", (m: ToMain) => {
      switch (m.t) {
        case "hosts":
          for (const h of m.hosts) hosts.set(h.name, interner.host(h));
          // Asked for after other pending work (I/O, timers) had its turn.
          setImmediate(() => worker.postMessage("next"));
          return;
        case "done": {
          const r = m.rest;
          interner = createConfigInterner();
          const config: Config = Object.freeze({
            hosts: freezeMap(hosts),
            resources: deepFreeze(r.resources),
            commands: deepFreeze(r.commands),
            contacts: deepFreeze(r.contacts),
            notifications: deepFreeze(r.notifications),
            views: deepFreeze(r.views),
            sinks: deepFreeze(r.sinks),
          });
          const digest = m.digest;
          settle(() => resolve(digest === undefined ? { ok: true, config } : { ok: true, config, digest }));
          return;
        }
        case "rejected":
          settle(() => resolve({ ok: false, diagnostics: m.diagnostics }));
          return;
        case "failed":
          settle(() => reject(new Error(`configuration loader worker: ${m.message}`)));
          return;
        default: {
          const never: never = m;
          settle(() => reject(new Error(`configuration loader worker: unexpected message ${String(never)}`)));
        }
      }
    });
    worker.on("error", (e) => {
      if ((e as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY" && maxHeapMb !== undefined) {
        const message =
          `evaluation budget exceeded: evaluating the document needs more than ${maxHeapMb} MB ` +
          "(the heap limit for its size, docs/configuration.md)";
        settle(() =>
          resolve({ ok: false, diagnostics: [{ message, file: input.file, line: 1, column: 1 }] }),
        );
        return;
      }
      settle(() => reject(new Error(`configuration loader worker: ${e.message}`, { cause: e })));
    });
    worker.on("exit", (code) =>
      settle(() => reject(new Error(`configuration loader worker exited with code ${code}`))),
    );
  });
}

/**
 * Freezes a cloned Config part as the decoder froze the original: objects and arrays, and maps
 * through freezeMap (mutators throw). Config parts are trees whose leaves may be shared; a frozen
 * object was already visited.
 */
function deepFreeze<T>(v: T): T {
  if (v === null || typeof v !== "object" || Object.isFrozen(v)) return v;
  if (v instanceof Map) {
    for (const x of v.values()) deepFreeze(x);
    freezeMap(v);
    return v;
  }
  for (const k in v) deepFreeze((v as Record<string, unknown>)[k]);
  return Object.freeze(v);
}
