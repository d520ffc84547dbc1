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
