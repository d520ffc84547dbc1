import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { AdminService } from "../../api/gen/svc/v1/admin_service_pb.js";
import { CommandService } from "../../api/gen/svc/v1/command_service_pb.js";
import { QueryService } from "../../api/gen/svc/v1/query_service_pb.js";
import { createStore } from "./store.js";

/** Whether the server answered the last call: drives the "unreachable" banner. */
export interface Connection {
  readonly up: boolean;
  /** When the server stopped answering (ms since epoch), while down. */
  readonly downSince?: number;
  readonly error?: string;
}

export const connection = createStore<Connection>({ up: true });

const TOKEN_KEY = "lookout.token";

/** The identity or API token the user signed in with, kept for this browser tab only. */
export const token = createStore<string>(sessionStorage.getItem(TOKEN_KEY) ?? "");
token.subscribe((t) => {
  if (t === "") sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, t);
});

const SESSION_KEY = "lookout.session";

/** Who signed in with a name and password: shown in the header; the credential is the cookie. */
export interface SessionUser {
  readonly name: string;
  readonly role: string;
}

function storedSession(): SessionUser | undefined {
  try {
    const v = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? "null") as SessionUser | null;
    return v !== null && typeof v.name === "string" && typeof v.role === "string" ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The identity signed in through /auth/login in this tab (the session cookie is HttpOnly). */
export const session = createStore<SessionUser | undefined>(storedSession());
session.subscribe((s) => {
  if (s === undefined) sessionStorage.removeItem(SESSION_KEY);
  else sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
});

/**
 * Signs in with a name and password (POST /auth/login, docs/auth.md): the server sets the session
 * cookie that every later call carries. Resolves to an error message for the user, or undefined.
 */
export async function login(name: string, password: string): Promise<string | undefined> {
  let res: Response;
  try {
    res = await trackedFetch("/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, password }),
    });
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  const body = (await res.json().catch(() => ({}))) as { name?: string; role?: string; message?: string };
  if (!res.ok) return body.message ?? `HTTP ${res.status}`;
  token.set("");
  session.set({ name: body.name ?? name, role: body.role ?? "" });
  return undefined;
}

/** Signs out: ends the server's session (if any) and forgets the token. */
export async function logout(): Promise<void> {
  if (session.get() !== undefined) {
    await trackedFetch("/auth/logout", { method: "POST" }).catch(() => undefined);
    session.set(undefined);
  }
  token.set("");
}

const bearer: Interceptor = (next) => (req) => {
  const t = token.get();
  if (t !== "") req.header.set("Authorization", `Bearer ${t}`);
  return next(req);
};

/** fetch that reports reachability: a network failure or a proxy's 502-504 mean "down". */
const trackedFetch: typeof fetch = async (input, init) => {
  try {
    const res = await fetch(input, { ...init, credentials: "same-origin" });
    if (res.status >= 502 && res.status <= 504) markDown(`HTTP ${res.status}`);
    else connection.set(connection.get().up ? connection.get() : { up: true });
    return res;
  } catch (e) {
    markDown(e instanceof Error ? e.message : String(e));
    throw e;
  }
};

function markDown(error: string): void {
  const c = connection.get();
  if (c.up) connection.set({ up: false, downSince: Date.now(), error });
}

const transport = createConnectTransport({
  baseUrl: location.origin,
  useBinaryFormat: true,
  interceptors: [bearer],
  fetch: trackedFetch,
});

/** The generated clients: every dashboard action is one of these public RPCs. */
export const query = createClient(QueryService, transport);
export const command = createClient(CommandService, transport);
export const admin = createClient(AdminService, transport);

/** A Connect error's code, or undefined for anything else. */
export function codeOf(e: unknown): Code | undefined {
  return e instanceof ConnectError ? e.code : undefined;
}

/** A short message for the user. */
export function messageOf(e: unknown): string {
  if (e instanceof ConnectError) return `${Code[e.code]}: ${e.rawMessage}`;
  return e instanceof Error ? e.message : String(e);
}
