import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One POST the receiver accepted. */
export interface ReceivedHook {
  readonly id: string;
  readonly body: Record<string, unknown>;
  /** performance.timeOrigin + performance.now() when it arrived. */
  readonly at: number;
}

/**
 * A loopback webhook receiver for tests and benches: records every accepted POST with its
 * Idempotency-Key, counts each id, and can answer 503, hang, or refuse connections (`down`).
 */
export interface WebhookReceiver {
  readonly url: string;
  readonly port: number;
  readonly got: ReceivedHook[];
  /** id → times accepted. */
  readonly counts: Map<string, number>;
  /** "ok": 204; "fail": 503; "hang": never answers. */
  mode: "ok" | "fail" | "hang";
  /** Stops listening (connections refused) until up(). */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Resolves once `n` distinct ids arrived (rejects after timeoutMs). */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 (port 0 picks a free port; a fixed one lets up() reuse it). */
export async function startWebhookReceiver(
  o: { keepBodies?: boolean; delayMs?: number } = {},
): Promise<WebhookReceiver> {
  const keep = o.keepBodies ?? true;
  const got: ReceivedHook[] = [];
  const counts = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const waiters: { n: number; resolve(): void }[] = [];
  let server = make();
  let port = 0;
  function make() {
    return createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        if (o.delayMs !== undefined && o.delayMs > 0) setTimeout(answer, o.delayMs);
        else answer();
      });
      const answer = () => {
        if (r.mode === "fail") {
          res.writeHead(503).end();
          return;
        }
        if (r.mode === "hang") {
          hanging.add(res);
          return;
        }
        const id = String(req.headers["idempotency-key"] ?? "");
        const seen = counts.get(id) ?? 0;
        counts.set(id, seen + 1);
        const at = performance.timeOrigin + performance.now();
        got.push({
          id,
          body: keep ? (JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>) : {},
          at,
        });
        res.writeHead(204).end();
        for (let i = waiters.length - 1; i >= 0; i--) {
          const w = waiters[i] as { n: number; resolve(): void };
          if (counts.size >= w.n) {
            waiters.splice(i, 1);
            w.resolve();
          }
        }
      };
    });
  }
  const listen = (s: ReturnType<typeof make>, p: number) =>
    new Promise<number>((resolve, reject) => {
      s.once("error", reject);
      s.listen(p, "127.0.0.1", () => resolve((s.address() as AddressInfo).port));
    });
  const shut = async (s: ReturnType<typeof make>) => {
    for (const h of hanging) h.destroy();
    hanging.clear();
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  port = await listen(server, 0);
  const r: WebhookReceiver = {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    got,
    counts,
    mode: "ok",
    down: () => shut(server),
    async up() {
      server = make();
      await listen(server, port);
    },
    waitFor(n, timeoutMs = 30_000) {
      if (counts.size >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`only ${counts.size} of ${n} ids arrived`)), timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(t);
            resolve();
          },
        });
      });
    },
    close: () => shut(server),
  };
  return r;
}
