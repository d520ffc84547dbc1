import { DEFAULT_OUTPUT_CAP, runProcess } from "../../checks/process/index.js";
import { ndjson } from "../ndjson.js";
import type { Sink } from "../sink.js";

/** How long one run may take before its process group is killed and the batch retried. */
export const EXEC_TIMEOUT_MS = 60_000;

/**
 * The `exec` sink: runs `command` (argv; no shell) once per batch with the batch as NDJSON on stdin
 * and the clean environment checks get. Exit 0 acknowledges the batch; any other end (non-zero exit,
 * a signal, the timeout, a program that cannot start) is retried. Output is capped and shown only in
 * errors.
 */
export function createExecSink(o: { command: readonly string[]; timeoutMs?: number }): Sink {
  const [file, ...args] = o.command;
  return {
    async send(batch, signal) {
      if (file === undefined) return { kind: "rejected", error: "exec sink without a command" };
      const r = await runProcess(
        {
          file,
          args,
          stdin: ndjson(batch.records),
          timeoutMs: o.timeoutMs ?? EXEC_TIMEOUT_MS,
          outputCap: DEFAULT_OUTPUT_CAP,
        },
        signal,
      );
      const end = r.end;
      switch (end.kind) {
        case "exited":
          if (end.code === 0) return { kind: "delivered" };
          return {
            kind: "retry",
            error: `${file} exited ${end.code}: ${(r.stderr || r.stdout).trim().slice(0, 200)}`,
          };
        case "signaled":
          return { kind: "retry", error: `${file} killed by ${end.signal}` };
        case "timeout":
          return { kind: "retry", error: `${file} timed out after ${end.afterMs} ms` };
        case "aborted":
          return { kind: "retry", error: `${file} aborted` };
        case "spawn-error":
          return { kind: "retry", error: `${file}: ${end.message}` };
        default: {
          const never: never = end;
          throw new Error(`unknown process end ${JSON.stringify(never)}`);
        }
      }
    },
    close: async () => {},
  };
}
