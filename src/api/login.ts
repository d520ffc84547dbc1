import type http from "node:http";
import type http2 from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type ClientAddress,
  cookieValue,
  type Identities,
  type LoginThrottle,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  type Sessions,
  verifyPassword,
} from "../auth/index.js";
import type { Logger } from "../model/logger.js";
import type { ApiAudit } from "./api-audit.js";
import { peerOf } from "./caller.js";
import type { NodeRequest } from "./request-body.js";

type Res = http.ServerResponse | http2.Http2ServerResponse;

/** The login and logout paths (plain HTTP POST, JSON). */
export const LOGIN_PATH = "/auth/login";
export const LOGOUT_PATH = "/auth/logout";

/** What a failed login is told (and its audit record says): one message for both cases. */
const WRONG = "wrong name or password";

/** A login body is small; anything larger is refused unread. */
const MAX_BODY = 4096;

export interface LoginDeps {
  readonly identities: () => Identities;
  readonly sessions: Sessions;
  readonly throttle: LoginThrottle;
  /** The client's address for the throttle (the peer's, or X-Forwarded-For's from a trusted proxy). */
  readonly clientAddress?: ClientAddress;
  readonly audit: ApiAudit;
  readonly logger: Logger;
}

/**
 * The dashboard's login and logout (docs/auth.md). Login takes `{"name","password"}` as JSON and
 * answers `{"name","role"}` with the session cookie (HttpOnly, SameSite=Strict, Path=/); a wrong
 * name or password is 401 with one message for both, after the same scrypt work. After
 * FAILED_LOGINS_PER_WINDOW failures from one client address, or
 * FAILED_LOGINS_PER_ACCOUNT_PER_WINDOW for one name from anywhere, logins are 429 until the
 * window ends, answered before any hashing (throttle.ts). Logout ends the session named by the cookie and clears it. Errors
 * are Connect-shaped JSON bodies (`{"code","message"}`), like the API's.
 */
export function loginRoutes(d: LoginDeps): Map<string, (req: NodeRequest, res: Res) => void> {
  const login = async (req: NodeRequest, res: Res): Promise<void> => {
    const peer = peerOf(req);
    const remote = req.socket.remoteAddress ?? "";
    const host = d.clientAddress?.(remote, header(req, "x-forwarded-for")) ?? remote;
    const allowed = d.throttle.attempt(host);
    if (!allowed.ok) {
      tooMany(res, allowed.retryAfterMs, "too many failed logins");
      return;
    }
    const body = await readJson(req);
    const name = typeof body?.name === "string" ? body.name : undefined;
    const password = typeof body?.password === "string" ? body.password : undefined;
    if (name === undefined || password === undefined) {
      send(res, 400, {
        code: "invalid_argument",
        message: 'want a JSON body {"name": ..., "password": ...}',
      });
      return;
    }
    const account = d.throttle.attemptAccount(name, host);
    if (!account.ok) {
      tooMany(res, account.retryAfterMs, "too many failed logins for this name");
      return;
    }
    const identity = d.identities().byName.get(name);
    const ok = await verifyPassword(password, identity?.password);
    const caller = { peer };
    const rpc = LOGIN_PATH;
    if (!ok || identity === undefined) {
      // The reason the client is given, never which of the two was wrong.
      d.audit.call(caller, rpc, { Type: "Login", Name: name }, new ConnectError(WRONG, Code.Unauthenticated));
      d.logger.warn("failed login", { peer, ...(host === remote ? {} : { client: host }), name });
      send(res, 401, { code: "unauthenticated", message: WRONG });
      return;
    }
    d.throttle.succeeded(host, name);
    const principal = { name: identity.name, role: identity.role };
    d.audit.call({ peer, principal }, rpc, { Type: "Login", Name: name });
    const { value } = d.sessions.issue(identity.name);
    send(res, 200, principal, [["set-cookie", sessionCookie(value, SESSION_TTL_MS / 1000)]]);
  };
  const logout = (req: NodeRequest, res: Res): void => {
    const value = cookieValue(header(req, "cookie"), SESSION_COOKIE);
    const claims = value === undefined ? undefined : d.sessions.verify(value);
    if (claims !== undefined) d.sessions.revoke(claims);
    res.writeHead(204, { "set-cookie": sessionCookie("", 0) });
    res.end();
  };
  return new Map([
    [
      LOGIN_PATH,
      (req, res) => {
        login(req, res).catch((e: unknown) => {
          d.logger.error("login failed", { error: e });
          send(res, 500, { code: "internal", message: "login failed" });
        });
      },
    ],
    [LOGOUT_PATH, logout],
  ]);
}

/** 429 with Retry-After in whole seconds (at least 1). */
function tooMany(res: Res, retryAfterMs: number, why: string): void {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  send(res, 429, { code: "resource_exhausted", message: `${why}: retry in ${seconds} s` }, [
    ["retry-after", String(seconds)],
  ]);
}

function sessionCookie(value: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}`;
}

function header(req: NodeRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

async function readJson(req: NodeRequest): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(c);
  }
  try {
    const v: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return v !== null && typeof v === "object" && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function send(res: Res, status: number, body: unknown, headers: [string, string][] = []): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...Object.fromEntries(headers),
  });
  (res as http.ServerResponse).end(text);
}
