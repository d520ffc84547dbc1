import { readFileSync } from "node:fs";
import {
  type Authenticator,
  type ConnectionOptions,
  credsAuthenticator,
  usernamePasswordAuthenticator,
} from "@nats-io/transport-node";

/**
 * How a server or worker proves who it is to NATS, as NATS users set it up (docs/zones.md,
 * Securing NATS): a credentials file (a user JWT and its nkey seed, as `nsc` writes it), or a
 * user and password; and TLS with a CA to verify the server and, for mutual TLS, a client
 * certificate and key. Files are named by path; the password itself is held here, never logged.
 */
export interface NatsAuth {
  /** Path of a `.creds` file; read again at each (re)connection, so a rotated file is taken. */
  readonly credsFile?: string;
  readonly user?: string;
  readonly password?: string;
  readonly tls?: {
    readonly caFile?: string;
    readonly certFile?: string;
    readonly keyFile?: string;
  };
}

/**
 * The creds file's bytes at each connection: read again each time (a rotated file is taken), the
 * last good read when it cannot be (a file being replaced).
 */
function credsReader(path: string): () => Uint8Array {
  let last = readFileSync(path);
  return () => {
    try {
      last = readFileSync(path);
    } catch {
      // Keep the last good credentials; the server says if they no longer hold.
    }
    return last;
  };
}

/**
 * How servers, workers and the zones benchmark connect to NATS: every server of `servers` (a
 * comma-separated list), reconnecting forever, one second apart, waiting for the first connection.
 * `noAsyncTraces`: nats.js otherwise creates an Error (a stack trace) for every request it sends,
 * that is for every job and result published, to give a timeout a better stack. `inboxPrefix`:
 * where replies to this connection go (a zone's worker has its own, so NATS permissions can keep
 * it from reading other zones' replies: `workerInboxPrefix`).
 */
export function natsConnectOptions(
  servers: string,
  name: string,
  auth: NatsAuth = {},
  inboxPrefix?: string,
): ConnectionOptions {
  const authenticators: Authenticator[] = [];
  if (auth.credsFile !== undefined) authenticators.push(credsAuthenticator(credsReader(auth.credsFile)));
  if (auth.user !== undefined) authenticators.push(usernamePasswordAuthenticator(auth.user, auth.password));
  const tls = auth.tls;
  return {
    servers: servers.split(",").map((s) => s.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    waitOnFirstConnect: true,
    noAsyncTraces: true,
    ...(authenticators.length === 0 ? {} : { authenticator: authenticators }),
    ...(tls === undefined
      ? {}
      : {
          tls: {
            ...(tls.caFile === undefined ? {} : { caFile: tls.caFile }),
            ...(tls.certFile === undefined ? {} : { certFile: tls.certFile }),
            ...(tls.keyFile === undefined ? {} : { keyFile: tls.keyFile }),
          },
        }),
    ...(inboxPrefix === undefined ? {} : { inboxPrefix }),
  };
}
