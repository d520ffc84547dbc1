import { type ChildProcess, spawn } from "node:child_process";
import type { CheckOutcome } from "../../model/check-result.js";
import { abortOutcome, describeNetError, oneLine, outcome } from "../format.js";
import { parseFpingSummaries, pingVerdict } from "./fping.js";

const PREFIX = "PING";
/** Room for the per-host lines and error messages of a full batch; the rest is dropped. */
const MAX_STDERR = 512 * 1024;

/** How runs are gathered into fping processes. */
export interface FpingBatcherOptions {
  /** The fping binary. */
  readonly fping: string;
  /** The flags before the host list (`-C 5 -q -p 200 -t 500 …`). */
  readonly flags: readonly string[];
  /** How long the first run of a batch waits for others to join; 0 spawns at once. */
  readonly windowMs: number;
  /** Runs per fping process at most; a full batch starts without waiting for the window. */
  readonly maxHosts: number;
}

interface Waiter {
  readonly host: string;
  readonly signal: AbortSignal;
  readonly start: number;
  readonly resolve: (o: CheckOutcome) => void;
  readonly onAbort: () => void;
  settled: boolean;
}

interface Batch {
  readonly waiters: Waiter[];
  timer: NodeJS.Timeout | undefined;
  child: ChildProcess | undefined;
}

/**
 * Pings hosts with as few fping processes as it can: runs that start within `windowMs` of each
 * other share one fping (which pings all its hosts in parallel), so 100,000 icmp checks a minute
 * cost hundreds of processes, not 100,000. Each run still settles on its own: an aborted run
 * resolves at once, and the process is killed by its PID when no run is left waiting for it.
 */
export function createFpingBatcher(
  options: FpingBatcherOptions,
): (host: string, signal: AbortSignal) => Promise<CheckOutcome> {
  let pending: Batch | undefined;

  const settle = (batch: Batch, w: Waiter, result: CheckOutcome): void => {
    if (w.settled) return;
    w.settled = true;
    w.signal.removeEventListener("abort", w.onAbort);
    w.resolve(result);
    if (batch.waiters.some((x) => !x.settled)) return;
    // Nobody is waiting any more: stop the window timer or the process.
    if (batch.timer !== undefined) clearTimeout(batch.timer);
    batch.timer = undefined;
    if (pending === batch) pending = undefined;
    const child = batch.child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };

  const launch = (batch: Batch): void => {
    if (pending === batch) pending = undefined;
    if (batch.timer !== undefined) clearTimeout(batch.timer);
    batch.timer = undefined;
    const live = batch.waiters.filter((w) => !w.settled);
    if (live.length === 0) return;
    const hosts = [...new Set(live.map((w) => w.host))];
    let child: ChildProcess;
    try {
      child = spawn(options.fping, [...options.flags, ...hosts], {
        stdio: ["ignore", "ignore", "pipe"],
        env: { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin", LC_ALL: "C" },
      });
    } catch (err) {
      for (const w of live)
        settle(batch, w, outcome(PREFIX, 3, `cannot run ${options.fping}: ${describeNetError(err)}`));
      return;
    }
    batch.child = child;
    let stderr = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.length < MAX_STDERR) stderr += chunk;
    });
    child.on("error", (err: NodeJS.ErrnoException) => {
      const why = err.code === "ENOENT" ? "not found (install the fping package)" : describeNetError(err);
      for (const w of batch.waiters)
        settle(batch, w, outcome(PREFIX, 3, `cannot run ${options.fping}: ${why}`));
    });
    // 'close' rather than 'exit': stderr is complete only once its pipe has closed.
    child.on("close", (code: number | null) => {
      const summaries = parseFpingSummaries(stderr);
      const lines = stderr.split("\n");
      for (const w of batch.waiters) {
        if (w.settled) continue;
        const samples = summaries.get(w.host);
        if (samples !== undefined && samples.length > 0) {
          settle(batch, w, pingVerdict(w.host, samples));
          continue;
        }
        // fping names a host it could not resolve at the start of a line and exits 2.
        const own = lines.find((l) => l.startsWith(`${w.host}: `));
        if (own !== undefined) {
          settle(batch, w, outcome(PREFIX, code === 2 ? 2 : 3, oneLine(own.trim())));
        } else {
          const said = oneLine(stderr.trim()).slice(0, 200) || "no output";
          settle(batch, w, outcome(PREFIX, 3, `${w.host}: fping exited with status ${code}: ${said}`));
        }
      }
    });
  };

  return (host, signal) =>
    new Promise<CheckOutcome>((resolve) => {
      const start = performance.now();
      if (pending === undefined) {
        const batch: Batch = { waiters: [], timer: undefined, child: undefined };
        pending = batch;
        batch.timer = setTimeout(() => launch(batch), options.windowMs);
      }
      const batch = pending;
      const w: Waiter = {
        host,
        signal,
        start,
        resolve,
        settled: false,
        onAbort: () => settle(batch, w, abortOutcome(PREFIX, signal, `ping ${host}`, start)),
      };
      batch.waiters.push(w);
      signal.addEventListener("abort", w.onAbort, { once: true });
      if (batch.waiters.length >= options.maxHosts) launch(batch);
    });
}
