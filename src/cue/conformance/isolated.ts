/**
 * Runs the corpus in a worker thread so that an archive on which the engine runs away (ignoring its
 * step limit) cannot stall the run: after `timeoutMs` without a result the worker is terminated,
 * that archive fails with a timeout, and a fresh worker continues with the next archive.
 */

import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { Worker } from "node:worker_threads";
import type { EngineOptions } from "./engine.js";
import type { CaseResult, CheckOptions } from "./inline.js";
import { type ArchiveResult, listArchives, runArchive } from "./runner.js";

/** Messages from the worker. */
export type WorkerMessage = { type: "start"; archive: string } | { type: "done"; result: ArchiveResult };

/** Input of the worker. */
export interface WorkerInput {
  readonly root: string;
  readonly archives: readonly string[];
  readonly engineOptions: EngineOptions;
  readonly check: CheckOptions;
}

export async function runCorpusIsolated(
  root: string,
  options: { filter?: string; engineOptions: EngineOptions; timeoutMs: number; check?: CheckOptions },
): Promise<ArchiveResult[]> {
  const all = listArchives(root)
    .map((p) => relative(root, p))
    .filter((a) => options.filter === undefined || a.includes(options.filter));
  const results: ArchiveResult[] = [];
  let next = 0;
  while (next < all.length) {
    const batch = all.slice(next);
    const done = await new Promise<number>((resolveBatch) => {
      let finished = 0;
      let current: string | undefined;
      let timer: NodeJS.Timeout | undefined;
      const worker = new Worker(new URL("./worker.js", import.meta.url), {
        workerData: {
          root,
          archives: batch,
          engineOptions: options.engineOptions,
          check: options.check ?? {},
        } satisfies WorkerInput,
      });
      const settle = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        void worker.terminate();
        resolveBatch(finished);
      };
      worker.on("message", (m: WorkerMessage) => {
        if (m.type === "start") {
          current = m.archive;
          if (timer !== undefined) clearTimeout(timer);
          timer = setTimeout(() => {
            results.push(timeoutResult(root, current ?? "?", options.timeoutMs));
            finished++;
            settle();
          }, options.timeoutMs);
        } else {
          if (timer !== undefined) clearTimeout(timer);
          results.push(m.result);
          finished++;
          current = undefined;
          if (finished === batch.length) settle();
        }
      });
      worker.on("error", (e) => {
        // A crash of the worker itself (e.g. out of memory): fail the archive it was on.
        results.push({
          archive: current ?? batch[finished] ?? "?",
          dir: dirOf(current ?? batch[finished] ?? "?"),
          cases: [{ name: current ?? "?", status: "failed", reason: `worker crashed: ${e.message}` }],
          ms: 0,
        });
        finished++;
        settle();
      });
      worker.on("exit", () => {
        if (finished < batch.length && current === undefined && timer === undefined) resolveBatch(finished);
      });
    });
    next += Math.max(done, 1);
  }
  return results;
}

function dirOf(archive: string): string {
  const i = archive.lastIndexOf("/");
  return i < 0 ? "." : archive.slice(0, i);
}

function timeoutResult(root: string, archive: string, ms: number): ArchiveResult {
  const reason = `timeout: no result after ${ms / 1000} s (the engine did not stop at its step limit)`;
  let cases: CaseResult[];
  try {
    // Every assertion of the archive fails (runArchive with an unavailable engine lists them).
    cases = runArchive(reason, readFileSync(join(root, archive), "utf8"), archive, {}).map((c) => ({
      ...c,
      status: c.status === "unsupported" && c.reason !== reason ? "unsupported" : "failed",
    }));
  } catch {
    cases = [{ name: archive, status: "failed", reason }];
  }
  return { archive, dir: dirOf(archive), cases, ms };
}
