import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A running nginx: its own directory (config, logs, any files a test puts there) and how to stop it. */
export interface NginxPeer {
  readonly dir: string;
  /** nginx's error log so far, for a failing test's message. */
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * Starts Debian's nginx (`/usr/sbin/nginx`) in the foreground with a configuration of its own in a
 * fresh temporary directory: `servers(dir)` gives the `server { … }` blocks of its `http` block,
 * listening on loopback ports the test picked. Ready once every port in `ports` accepts a
 * connection. Stopped by its PID with SIGTERM (the master stops its worker before it exits);
 * the directory is removed then.
 */
export async function startNginx(
  ports: readonly number[],
  servers: (dir: string) => string,
): Promise<NginxPeer> {
  const dir = mkdtempSync(join(tmpdir(), "lookout-nginx-"));
  const tmp = (n: string) => `${n}_temp_path ${join(dir, n)};`;
  writeFileSync(
    join(dir, "nginx.conf"),
    `daemon off;
user root;
worker_processes 1;
pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "error.log")} info;
events { worker_connections 64; }
http {
  access_log off;
  default_type text/plain;
  ${tmp("client_body")} ${tmp("proxy")} ${tmp("fastcgi")} ${tmp("uwsgi")} ${tmp("scgi")}
${servers(dir)}
}
`,
  );
  const child: ChildProcess = spawn("/usr/sbin/nginx", ["-c", join(dir, "nginx.conf"), "-p", dir], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (b: Buffer) => {
    stderr += b.toString();
  });
  const errorLog = (): string => {
    try {
      return stderr + readFileSync(join(dir, "error.log"), "utf8");
    } catch {
      return stderr;
    }
  };
  const stop = async (): Promise<void> => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, "exit");
      process.kill(child.pid, "SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) await waitListening(port, child);
  } catch (e) {
    const log = errorLog();
    await stop();
    throw new Error(`nginx did not start: ${(e as Error).message}\n${log}`);
  }
  return { dir, errorLog, stop };
}

async function waitListening(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`exited (${child.exitCode ?? child.signalCode})`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, "127.0.0.1");
      s.once("connect", () => {
        s.destroy();
        resolve(true);
      });
      s.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`port ${port} not listening after 15 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
