import type { ChildProcess } from "node:child_process";
import { once } from "node:events";

/** A running peer that a test must stop. */
export interface Peer {
  readonly host: string;
  readonly port: number;
  /** `host:port`, with brackets around an IPv6 host. */
  readonly address: string;
  stop(): Promise<void>;
}

/** `host:port`, bracketing IPv6 literals. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Kills a child by its PID with SIGKILL and waits until it has exited. */
export async function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  if (child.pid !== undefined) {
    try {
      process.kill(child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  await exited;
}
