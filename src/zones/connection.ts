import type { ConnectionOptions } from "@nats-io/transport-node";

/**
 * How servers, workers and the zones benchmark connect to NATS: every server of `servers` (a
 * comma-separated list), reconnecting forever, one second apart, waiting for the first connection.
 * `noAsyncTraces`: nats.js otherwise creates an Error (a stack trace) for every request it sends,
 * that is for every job and result published, to give a timeout a better stack.
 */
export function natsConnectOptions(servers: string, name: string): ConnectionOptions {
  return {
    servers: servers.split(",").map((s) => s.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    waitOnFirstConnect: true,
    noAsyncTraces: true,
  };
}
