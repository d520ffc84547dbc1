import type { ConnectRouter, Interceptor, ServiceImpl } from "@connectrpc/connect";
import type { AuthGate } from "../auth/index.js";
import type { ApiAudit } from "./api-audit.js";
import { gateInterceptor } from "./caller.js";
import { AdminService } from "./gen/svc/v1/admin_service_pb.js";
import { CommandService } from "./gen/svc/v1/command_service_pb.js";
import { QueryService } from "./gen/svc/v1/query_service_pb.js";

export interface RouteOptions {
  /** Under -read-only only the QueryService exists. */
  readonly readOnly: boolean;
  /** Whether -auth-config was given: the AdminService exists only then (and not read-only). */
  readonly authConfigured: boolean;
  /** Who may use which service (src/auth/gate.ts); every route and fast path asks it. */
  readonly gate: AuthGate;
  /** Where refused writes are audited (accepted ones are audited by the services). */
  readonly audit?: ApiAudit;
  readonly query: Partial<ServiceImpl<typeof QueryService>>;
  readonly command: Partial<ServiceImpl<typeof CommandService>>;
  readonly admin: Partial<ServiceImpl<typeof AdminService>>;
}

/**
 * Which services are mounted. An unmounted service has no routes at all, so its paths answer a
 * plain 404 like any unknown path, rather than an error that would reveal it exists.
 */
export function mountedServices(o: Pick<RouteOptions, "readOnly" | "authConfigured">): {
  query: boolean;
  command: boolean;
  admin: boolean;
} {
  return { query: true, command: !o.readOnly, admin: o.authConfigured && !o.readOnly };
}

/**
 * Registers the mounted services on a Connect router, each behind `first` (the RPC metrics) and
 * then the gate for its service. A service's own interceptors replace the router's, so the ones
 * every service needs are given here, to each.
 */
export function registerRoutes(
  router: ConnectRouter,
  o: RouteOptions,
  first: readonly Interceptor[] = [],
): void {
  const m = mountedServices(o);
  const behind = (gate: Interceptor) => ({ interceptors: [...first, gate] });
  router.service(QueryService, o.query, behind(gateInterceptor(o.gate, "query")));
  if (m.command)
    router.service(CommandService, o.command, behind(gateInterceptor(o.gate, "command", o.audit)));
  if (m.admin) router.service(AdminService, o.admin, behind(gateInterceptor(o.gate, "admin", o.audit)));
}
