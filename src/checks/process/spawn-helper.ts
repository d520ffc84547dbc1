import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants as fsConstants } from "node:fs";
import type { Socket } from "node:net";
import { constants as osConstants } from "node:os";
import type { ProcessEnd, ProcessResult, ProcessSpec } from "./run-process.js";

/**
 * A process runner that starts children through lookout-spawn-helper (spawn-helper.c), a small C
 * program started once and kept: the large Node.js process then never forks (a fork copies its page
 * tables, milliseconds per check at hundreds of megabytes), and a finished check costs it one short
 * message instead of a process handle, two pipes and their event-loop turns. The contract is
 * runProcess's, kept by the helper: own process group, clean environment, no shell, capped output,
 * the group killed when the child exits; timeout and abort ask the helper to kill the group.
 */
export interface SpawnHelper {
  run(
    spec: Required<Pick<ProcessSpec, "env" | "outputCap">> & ProcessSpec,
    signal?: AbortSignal,
  ): Promise<ProcessResult>;
  /** Ends the helper (it kills the groups of children still running). */
  close(): void;
}

const OP_SPAWN = 1;
const OP_KILL = 2;

const errnoNames = new Map<number, string>(
  Object.entries(osConstants.errno).map(([name, n]) => [n as number, name]),
);
const signalNames = new Map<number, string>(
  Object.entries(osConstants.signals).map(([name, n]) => [n as number, name]),
);

interface Pending {
  readonly file: string;
  readonly started: number;
  readonly resolve: (r: ProcessResult) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
  timer: NodeJS.Timeout | undefined;
  forced: ProcessEnd | undefined;
}

/** Whether `path` is an executable file (the helper is built by `npm run build`). */
export function helperUsable(path: string): boolean {
  try {
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs processes through the helper at `path`, started on first use and again after it died (its
 * runs then end as spawn errors). The helper does not keep Node.js alive while nothing runs.
 */
export function createSpawnHelper(path: string): SpawnHelper {
  let child: ChildProcess | undefined;
  let input: Socket | undefined;
  let output: Socket | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  let chunks: Buffer[] = [];
  let buffered = 0;
  let corked = false;

  const failAll = (why: string): void => {
    for (const [id, p] of pending) settle(id, p, { kind: "spawn-error", message: why }, "", "", false);
  };

  const start = (): void => {
    const c = spawn(path, [], { stdio: ["pipe", "pipe", "inherit"], env: {} });
    child = c;
    input = c.stdin as Socket;
    output = c.stdout as Socket;
    c.unref();
    input.unref();
    output.unref();
    input.on("error", () => {}); // EPIPE when the helper died: its exit event fails the runs
    output.on("data", onData);
    c.on("error", (e) => {
      if (child === c) child = undefined;
      failAll(`spawn helper could not start: ${e.message}`);
    });
    c.on("exit", (code, sig) => {
      if (child === c) child = undefined;
      chunks = [];
      buffered = 0;
      failAll(`spawn helper exited (${sig ?? code})`);
    });
  };

  /** Runs in flight keep Node.js alive: the pipe for answers, and the helper for its exit event. */
  const refresh = (): void => {
    if (pending.size > 0) {
      output?.ref();
      child?.ref();
    } else {
      output?.unref();
      child?.unref();
    }
  };

  const settle = (
    id: number,
    p: Pending,
    end: ProcessEnd,
    stdout: string,
    stderr: string,
    truncated: boolean,
  ): void => {
    pending.delete(id);
    if (p.timer !== undefined) clearTimeout(p.timer);
    p.signal?.removeEventListener("abort", p.onAbort);
    refresh();
    p.resolve({
      end: p.forced ?? end,
      stdout,
      stderr,
      truncated,
      durationMs: performance.now() - p.started,
    });
  };

  const onData = (chunk: Buffer): void => {
    chunks.push(chunk);
    buffered += chunk.length;
    if (buffered < 4) return;
    let buf = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, buffered);
    let at = 0;
    while (buf.length - at >= 22) {
      const rest = buf.readUInt32LE(at);
      if (buf.length - at - 4 < rest) break;
      const id = buf.readUInt32LE(at + 4);
      const kind = buf[at + 8];
      const value = buf.readInt32LE(at + 9);
      const trunc = buf[at + 13] ?? 0;
      const olen = buf.readUInt32LE(at + 14);
      const elen = buf.readUInt32LE(at + 18);
      const o = at + 22;
      const p = pending.get(id);
      if (p !== undefined) {
        const end: ProcessEnd =
          kind === 1
            ? { kind: "exited", code: value }
            : kind === 2
              ? { kind: "signaled", signal: signalNames.get(value) ?? "unknown" }
              : {
                  kind: "spawn-error",
                  message: `spawn ${p.file} ${errnoNames.get(value) ?? `errno ${value}`}`,
                };
        settle(
          id,
          p,
          end,
          buf.toString("utf8", o, o + olen),
          buf.toString("utf8", o + olen, o + olen + elen),
          trunc !== 0,
        );
      }
      at += 4 + rest;
    }
    if (at === buf.length) {
      chunks = [];
      buffered = 0;
    } else {
      buf = buf.subarray(at);
      chunks = [buf];
      buffered = buf.length;
    }
  };

  /** Requests written in one turn leave in one write. */
  const send = (msg: Buffer): void => {
    if (input === undefined) return;
    if (!corked) {
      corked = true;
      input.cork();
      process.nextTick(() => {
        corked = false;
        input?.uncork();
      });
    }
    input.write(msg);
  };

  const spawnRequest = (
    id: number,
    spec: ProcessSpec,
    env: Readonly<Record<string, string>>,
    cap: number,
  ) => {
    const strings = [spec.file, spec.file, ...spec.args];
    for (const [k, v] of Object.entries(env)) strings.push(`${k}=${v}`);
    let size = 4 + 4 + 1 + 12;
    const encoded = strings.map((s) => Buffer.from(s, "utf8"));
    for (const b of encoded) size += b.length + 1;
    const msg = Buffer.allocUnsafe(size);
    msg.writeUInt32LE(size - 4, 0);
    msg.writeUInt32LE(id, 4);
    msg[8] = OP_SPAWN;
    msg.writeUInt32LE(cap, 9);
    msg.writeUInt32LE(spec.args.length + 1, 13);
    msg.writeUInt32LE(strings.length - spec.args.length - 2, 17);
    let at = 21;
    for (const b of encoded) {
      b.copy(msg, at);
      at += b.length;
      msg[at++] = 0;
    }
    return msg;
  };

  const killRequest = (id: number): Buffer => {
    const msg = Buffer.allocUnsafe(9);
    msg.writeUInt32LE(5, 0);
    msg.writeUInt32LE(id, 4);
    msg[8] = OP_KILL;
    return msg;
  };

  return {
    run(spec, signal) {
      const started = performance.now();
      return new Promise((resolve) => {
        const fail = (end: ProcessEnd): void =>
          resolve({ end, stdout: "", stderr: "", truncated: false, durationMs: performance.now() - started });
        if (signal?.aborted) return fail({ kind: "aborted" });
        const env = spec.env;
        const bad = [spec.file, ...spec.args, ...Object.keys(env), ...Object.values(env)].some((s) =>
          s.includes("\0"),
        );
        if (bad)
          return fail({ kind: "spawn-error", message: "arguments must be strings without null bytes" });
        if (child === undefined) start();
        const id = nextId;
        nextId = nextId >= 0xfffffffe ? 1 : nextId + 1;
        const force = (why: ProcessEnd): void => {
          if (p.forced !== undefined) return;
          p.forced = why;
          send(killRequest(id));
        };
        const p: Pending = {
          file: spec.file,
          started,
          resolve,
          signal,
          onAbort: () => force({ kind: "aborted" }),
          timer: undefined,
          forced: undefined,
        };
        pending.set(id, p);
        refresh();
        signal?.addEventListener("abort", p.onAbort, { once: true });
        const timeoutMs = spec.timeoutMs ?? 0;
        if (timeoutMs > 0)
          p.timer = setTimeout(() => force({ kind: "timeout", afterMs: timeoutMs }), timeoutMs);
        send(spawnRequest(id, spec, env, spec.outputCap));
      });
    },
    close() {
      child?.stdin?.end();
      child = undefined;
    },
  };
}
