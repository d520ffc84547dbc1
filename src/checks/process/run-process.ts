import { spawn } from "node:child_process";
import { endianness } from "node:os";
import { fileURLToPath } from "node:url";
import { createSpawnHelper, helperUsable, type SpawnHelper } from "./spawn-helper.js";

/** Bytes of stdout (and, separately, stderr) kept from one run, as Icinga 2 keeps; the rest is drained. */
export const DEFAULT_OUTPUT_CAP = 64 * 1024;

/**
 * The environment every child starts with. Nothing of Lookout's own environment is inherited, so
 * tokens passed to Lookout by environment variable never reach a plugin. `TZ` is the one exception,
 * copied when set, so plugins print the same local time as the host.
 */
export function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C", LC_ALL: "C" };
  const tz = process.env.TZ;
  if (tz !== undefined && tz !== "") env.TZ = tz;
  return env;
}

/** What to run. No shell is involved: `file` is executed with `args` as its argv[1..]. */
export interface ProcessSpec {
  /** An absolute path, or a name looked up in the clean PATH. */
  readonly file: string;
  readonly args: readonly string[];
  /** Defaults to cleanEnv(). */
  readonly env?: Readonly<Record<string, string>>;
  /** Kill the process group after this many milliseconds; 0 or absent for no own timer. */
  readonly timeoutMs?: number;
  /** Defaults to DEFAULT_OUTPUT_CAP. */
  readonly outputCap?: number;
  /** Written to the child's stdin, which is then closed (exec sinks); absent: stdin is /dev/null. */
  readonly stdin?: Uint8Array;
}

/** How a run ended. Exactly one of these is true for a run that started. */
export type ProcessEnd =
  | { readonly kind: "exited"; readonly code: number }
  | { readonly kind: "signaled"; readonly signal: string }
  | { readonly kind: "timeout"; readonly afterMs: number }
  | { readonly kind: "aborted" }
  | { readonly kind: "spawn-error"; readonly message: string };

export interface ProcessResult {
  readonly end: ProcessEnd;
  readonly stdout: string;
  readonly stderr: string;
  /** Whether stdout or stderr went past the cap and was cut. */
  readonly truncated: boolean;
  readonly durationMs: number;
}

class Capture {
  readonly #cap: number;
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  truncated = false;

  constructor(cap: number) {
    this.#cap = cap;
  }

  push(chunk: Buffer): void {
    const room = this.#cap - this.#kept;
    if (room <= 0) {
      if (chunk.length > 0) this.truncated = true;
      return;
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part.length < chunk.length) this.truncated = true;
    this.#chunks.push(part);
    this.#kept += part.length;
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString("utf8");
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone.
  }
}

function signalName(sig: NodeJS.Signals | null): string {
  return sig ?? "unknown";
}

/**
 * Where `npm run build` puts lookout-spawn-helper (scripts/build-spawn-helper.mjs): beside this
 * module in dist/.
 */
export const SPAWN_HELPER_PATH = fileURLToPath(new URL("./lookout-spawn-helper", import.meta.url));

let helper: SpawnHelper | undefined;
let helperChecked = false;

/**
 * The spawn helper when it is built (and the machine is little-endian, as its wire format is);
 * `LOOKOUT_SPAWN_HELPER=0` in Lookout's environment turns it off.
 */
function sharedHelper(): SpawnHelper | undefined {
  if (!helperChecked) {
    helperChecked = true;
    if (
      process.env.LOOKOUT_SPAWN_HELPER !== "0" &&
      endianness() === "LE" &&
      helperUsable(SPAWN_HELPER_PATH)
    ) {
      helper = createSpawnHelper(SPAWN_HELPER_PATH);
    }
  }
  return helper;
}

/** Which way runProcess starts children: through the spawn helper, or from this process. */
export function spawnMode(): "helper" | "in-process" {
  return sharedHelper() === undefined ? "in-process" : "helper";
}

/**
 * Runs a child process without a shell, in its own process group, with a clean environment, and
 * settles when it has exited and its output is read. Never rejects. The child is started by the
 * spawn helper (spawn-helper.c) when it is built and the child needs no stdin, else from this
 * process (runProcessInProcess); both keep the same contract.
 */
export function runProcess(spec: ProcessSpec, signal?: AbortSignal): Promise<ProcessResult> {
  // The helper's wire format carries no input: a child that reads stdin (an exec sink's batch) is
  // started from this process. Plugins, the many, never read stdin.
  const h = spec.stdin === undefined ? sharedHelper() : undefined;
  if (h === undefined) return runProcessInProcess(spec, signal);
  return h.run(
    { ...spec, env: spec.env ?? cleanEnv(), outputCap: spec.outputCap ?? DEFAULT_OUTPUT_CAP },
    signal,
  );
}

/**
 * Runs a child process without a shell, in its own process group, with a clean environment, and
 * settles when it has exited and its output is read. Never rejects.
 *
 * Timeout and abort send SIGKILL to the whole group, so grandchildren die too (a plugin that forks a
 * helper which ignores SIGTERM cannot outlive the check). When the direct child exits, the rest of its
 * group is killed as well: a check must not leave processes behind, and a leftover holding the pipes
 * open would otherwise delay the result. A grandchild that escaped the group (setsid) cannot hold the
 * result: the pipes are abandoned 500 ms after the child exited.
 */
export function runProcessInProcess(spec: ProcessSpec, signal?: AbortSignal): Promise<ProcessResult> {
  const started = performance.now();
  const cap = spec.outputCap ?? DEFAULT_OUTPUT_CAP;
  return new Promise((resolve) => {
    const done = (end: ProcessEnd, out?: Capture, err?: Capture): void => {
      resolve({
        end,
        stdout: out?.text() ?? "",
        stderr: err?.text() ?? "",
        truncated: (out?.truncated ?? false) || (err?.truncated ?? false),
        durationMs: performance.now() - started,
      });
    };
    if (signal?.aborted) {
      done({ kind: "aborted" });
      return;
    }
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(spec.file, [...spec.args], {
        env: { ...(spec.env ?? cleanEnv()) },
        stdio: [spec.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
        detached: true,
        shell: false,
        windowsHide: true,
      });
    } catch (e) {
      done({ kind: "spawn-error", message: e instanceof Error ? e.message : String(e) });
      return;
    }
    const out = new Capture(cap);
    const err = new Capture(cap);
    if (spec.stdin !== undefined && child.stdin !== null) {
      // A child that exits without reading all of it closes the pipe: EPIPE is its choice, not an error.
      child.stdin.on("error", () => {});
      child.stdin.end(spec.stdin);
    }
    child.stdout?.on("data", (c: Buffer) => out.push(c));
    child.stderr?.on("data", (c: Buffer) => err.push(c));

    let forced: ProcessEnd | undefined;
    let exited: ProcessEnd | undefined;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let abandon: NodeJS.Timeout | undefined;

    const finish = (): void => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      if (abandon !== undefined) clearTimeout(abandon);
      signal?.removeEventListener("abort", onAbort);
      done(forced ?? exited ?? { kind: "aborted" }, out, err);
    };
    const force = (why: ProcessEnd): void => {
      if (exited !== undefined || forced !== undefined) return;
      forced = why;
      killGroup(child.pid);
    };
    const onAbort = (): void => force({ kind: "aborted" });
    signal?.addEventListener("abort", onAbort, { once: true });
    const timeoutMs = spec.timeoutMs ?? 0;
    if (timeoutMs > 0) timer = setTimeout(() => force({ kind: "timeout", afterMs: timeoutMs }), timeoutMs);

    child.on("error", (e) => {
      // Spawn failures (ENOENT, EACCES) arrive here without an exit event.
      if (child.pid === undefined) {
        exited = { kind: "spawn-error", message: e.message };
        finish();
      }
    });
    child.on("exit", (code, sig) => {
      exited = code !== null ? { kind: "exited", code } : { kind: "signaled", signal: signalName(sig) };
      killGroup(child.pid);
      abandon = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, 500);
    });
    child.on("close", finish);
  });
}
