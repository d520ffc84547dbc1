import { Code } from "@connectrpc/connect";
import { admin, codeOf, session, token } from "./api.js";
import { createStore } from "./store.js";

/** What the server lets this user do, learned from its answers (there is no "who am I" RPC). */
export interface Access {
  /** AdminService: usable, refused for this role, needs a login, or not mounted/implemented. */
  readonly admin: "unknown" | "yes" | "denied" | "login" | "unavailable";
  /** CommandService writes: offered until the server refuses them. */
  readonly commands: "yes" | "denied" | "login" | "unavailable";
  /** QueryService reads. */
  readonly reads: "yes" | "login";
}

export const access = createStore<Access>({ admin: "unknown", commands: "yes", reads: "yes" });

/** Whether the server asked for credentials somewhere: the login link is then offered. */
export function loginWanted(a: Access): boolean {
  return a.admin === "login" || a.commands === "login" || a.reads === "login";
}

/** Asks AdminService for one audit record: its answer says whether this user is an admin. */
export async function probeAdmin(): Promise<void> {
  try {
    await admin.listAuditRecords({ limit: 1 });
    update({ admin: "yes" });
  } catch (e) {
    const code = codeOf(e);
    switch (code) {
      case Code.Unauthenticated:
        update({ admin: "login" });
        break;
      case Code.PermissionDenied:
        update({ admin: "denied" });
        break;
      case Code.Unimplemented:
      case Code.NotFound:
        update({ admin: "unavailable" });
        break;
      default:
        break;
    }
  }
}

/** Learns from a refused command: the buttons it cannot use are no longer offered. */
export function noteCommandError(e: unknown): void {
  switch (codeOf(e)) {
    case Code.Unauthenticated:
      update({ commands: "login" });
      break;
    case Code.PermissionDenied:
      update({ commands: "denied" });
      break;
    case Code.Unimplemented:
      update({ commands: "unavailable" });
      break;
    default:
      break;
  }
}

/** Learns from a refused read. */
export function noteReadError(e: unknown): void {
  if (codeOf(e) === Code.Unauthenticated) update({ reads: "login" });
}

/** After signing in or out, everything is learned again. */
export function resetAccess(): void {
  access.set({ admin: "unknown", commands: "yes", reads: "yes" });
  void probeAdmin();
}

function update(p: Partial<Access>): void {
  access.set({ ...access.get(), ...p });
}

token.subscribe(() => resetAccess());
session.subscribe(() => resetAccess());
