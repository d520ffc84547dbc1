import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type ApiAudit, createApiAudit, loginRoutes } from "../api/index.js";
import { type AuditLog, openAuditLog } from "../audit/index.js";
import {
  type AuthGate,
  createAuthGate,
  createClientAddress,
  createLoginThrottle,
  createSessions,
  randomSessionSecret,
  sessionSecretProblem,
} from "../auth/index.js";
import type { Clock } from "../model/clock.js";
import type { Logger } from "../model/logger.js";
import { IdentitiesFile } from "./identities-file.js";
import type { ServerOptions } from "./server-flags.js";

/** The security parts of a running server. */
export interface AuthWiring {
  readonly gate: AuthGate;
  /** The -auth-config document in force; undefined without the flag. */
  readonly identities?: IdentitiesFile;
  readonly auditLog: AuditLog;
  readonly audit: ApiAudit;
  /** Login and logout, with -auth-config. */
  readonly routes: ReturnType<typeof loginRoutes>;
}

/** A start-up failure in the security settings, said so the operator can fix it. */
export class AuthSetupError extends Error {
  override readonly name = "AuthSetupError";
}

/**
 * Builds the gate, identities, sessions, login throttle and audit log from the flags: a
 * `-session-secret` shorter than MIN_SESSION_SECRET_BYTES is refused (whether or not sessions are
 * in use: it would be the day -auth-config is added), as is a rejected identities document (with
 * its diagnostics). `-auth-config` without a secret signs with a random one, said at warn level:
 * sessions then end with the process.
 */
export async function wireAuth(o: ServerOptions, clock: Clock, logger: Logger): Promise<AuthWiring> {
  let identities: IdentitiesFile | undefined;
  const weak = o.sessionSecret === "" ? undefined : sessionSecretProblem(o.sessionSecret);
  if (weak !== undefined) throw new AuthSetupError(weak);
  let secret = o.sessionSecret;
  if (o.authConfig !== "") {
    if (secret === "") {
      secret = randomSessionSecret();
      logger.warn(
        "no -session-secret: dashboard sessions are signed with a random secret made at start, so every session ends when this process stops (set -session-secret, e.g. from `openssl rand -base64 48`, to keep them across restarts)",
      );
    }
    try {
      identities = await IdentitiesFile.open(o.authConfig, logger.child({ component: "auth" }));
    } catch (e) {
      throw new AuthSetupError(`-auth-config ${o.authConfig} is rejected:\n${(e as Error).message}`);
    }
  }
  mkdirSync(o.dataDir, { recursive: true });
  const auditLog = openAuditLog(join(o.dataDir, "audit.db"), clock, logger.child({ component: "audit" }));
  const audit = createApiAudit(auditLog, clock);
  const sessions = identities === undefined ? undefined : createSessions(secret, clock);
  const gate = createAuthGate({
    apiToken: o.apiToken,
    ...(identities === undefined ? {} : { identities: () => identities.current }),
    ...(sessions === undefined ? {} : { sessions }),
  });
  const routes =
    identities === undefined || sessions === undefined
      ? new Map()
      : loginRoutes({
          identities: () => identities.current,
          sessions,
          throttle: createLoginThrottle(clock),
          clientAddress: createClientAddress(o.trustedProxies ?? []),
          audit,
          logger: logger.child({ component: "auth" }),
        });
  return { gate, ...(identities === undefined ? {} : { identities }), auditLog, audit, routes };
}
