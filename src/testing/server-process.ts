import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The compiled server entry point, dist/src/main.js. */
export const MAIN_JS = fileURLToPath(new URL("../main.js", import.meta.url));

export interface ServerProcess {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** Everything the server logged so far (JSON lines). */
  stderr(): string;
  /** SIGTERM, then SIGKILL after 30 s (a graceful stop applies what is queued and snapshots, which takes seconds on a loaded machine); resolves with the exit code (null when killed). */
  stop(): Promise<number | null>;
  /** SIGKILL at once, as a crash would. */
  kill(): Promise<void>;
}

/**
 * Starts the real `lookout` binary on a free loopback port (`-listen 127.0.0.1:0` unless args set
 * -listen) and resolves once it logs that it is listening (within 60 s unless `timeoutMs` says:
 * on a machine shared by many test runs a start can take far longer than on a quiet one).
 */
export async function startServer(
  args: readonly string[] = [],
  opts: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    timeoutMs?: number;
    /** Node flags before the entry point (a benchmark passes the launcher's, bench/launcher-settings.ts). */
    nodeArgs?: readonly string[];
  } = {},
): Promise<ServerProcess> {
  const hasListen = args.some((a) => /^--?listen(=|$)/.test(a));
  const child = spawn(
    process.execPath,
    [...(opts.nodeArgs ?? []), MAIN_JS, ...(hasListen ? [] : ["-listen", "127.0.0.1:0"]), ...args],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: opts.env ?? { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      cwd: opts.cwd,
    },
  );
  let log = "";
  child.stderr?.setEncoding("utf8");
  child.stdout?.resume();
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A server that never got to listen must not outlive the test (nor keep its runner waiting).
      child.kill("SIGKILL");
      reject(new Error(`server did not start:\n${log}`));
    }, opts.timeoutMs ?? 60_000);
    child.stderr?.on("data", (chunk: string) => {
      log += chunk;
      const m = /"msg":"listening","address":"[^"]*:(\d+)"/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${log}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    stderr: () => log,
    async stop() {
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * Runs the binary to completion (for -h, validate, bad flags) and returns its exit code and output;
 * with `timeoutMs`, a run still going then is killed (code null), so a server that starts where it
 * should have refused fails the test instead of hanging it.
 */
export function runLookout(
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN_JS, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: opts.env ?? { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      cwd: opts.cwd,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    const timer =
      opts.timeoutMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
