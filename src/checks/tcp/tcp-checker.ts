import { connect, type Socket } from "node:net";
import type { CheckOutcome } from "../../model/check-result.js";
import type { Checker, CheckTarget } from "../../model/checker.js";
import type { TcpProbe } from "../../model/config.js";
import {
  abortOutcome,
  describeNetError,
  formatSeconds,
  outcome,
  parseHostPort,
  timeDatum,
} from "../format.js";

const PREFIX = "TCP";

/**
 * Creates the `tcp` checker: it opens a TCP connection to `address` (`host:port` or `[v6]:port`),
 * reports the connect time and closes the connection at once. OK on connect; CRITICAL when the
 * connection is refused, unreachable, or still pending when the signal aborts with a timeout;
 * UNKNOWN for an address that is not `host:port`. It holds no state, so one checker serves any
 * number of concurrent runs.
 */
export function createTcpChecker(): Checker<TcpProbe> {
  return { type: "tcp", run: runTcp };
}

function runTcp(target: CheckTarget<TcpProbe>, signal: AbortSignal): Promise<CheckOutcome> {
  const address: unknown = target?.probe?.address;
  const hp = typeof address === "string" ? parseHostPort(address) : undefined;
  if (hp === undefined) {
    return Promise.resolve(
      outcome(PREFIX, 3, `invalid address ${JSON.stringify(address)}: expected host:port`),
    );
  }
  const where = `${hp.host} port ${hp.port}`;
  const start = performance.now();
  if (signal.aborted) return Promise.resolve(abortOutcome(PREFIX, signal, `connect to ${where}`, start));
  const timeoutMs = target.probe.timeoutMs;

  return new Promise<CheckOutcome>((resolve) => {
    let settled = false;
    let socket: Socket | undefined;
    const finish = (result: CheckOutcome): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      // destroy() closes the descriptor now; a probe has nothing to say to the peer.
      socket?.destroy();
      resolve(result);
    };
    const onConnect = (): void => {
      const seconds = (performance.now() - start) / 1000;
      finish(
        outcome(PREFIX, 0, `${formatSeconds(seconds)} second response time on ${where}`, [
          timeDatum(seconds, timeoutMs),
        ]),
      );
    };
    const onError = (err: unknown): void => {
      finish(outcome(PREFIX, 2, `connect to ${where}: ${describeNetError(err)}`));
    };
    const onAbort = (): void => {
      finish(abortOutcome(PREFIX, signal, `connect to ${where}`, start));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      socket = connect(hp.port, hp.host);
    } catch (err) {
      // connect() throws synchronously only for arguments it rejects outright.
      finish(outcome(PREFIX, 3, `connect to ${where}: ${describeNetError(err)}`));
      return;
    }
    // Kept on for the socket's life: an 'error' after settling must not become an uncaught one.
    socket.on("error", onError);
    socket.once("connect", onConnect);
  });
}
