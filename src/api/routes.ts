import type { ConnectRouter, Interceptor, ServiceImpl } from "@connectrpc/connect";
import { AdminService } from "./gen/svc/v1/admin_service_pb.js";
import { CommandService } from "./gen/svc/v1/command_service_pb.js";
import { QueryService } from "./gen/svc/v1/query_service_pb.js";

export interface RouteOptions {
  /** Under -read-only only the QueryService exists. */
  readonly readOnly: boolean;
  /** Whether -auth-config was given: the AdminService exists only then (and not read-only). */
  readonly authConfigured: boolean;
  /** The -api-token interceptor for CommandService, when a token is set. */
  readonly commandAuth?: Interceptor;
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

/** Registers the mounted services on a Connect router. */
export function registerRoutes(router: ConnectRouter, o: RouteOptions): void {
  const m = mountedServices(o);
  router.service(QueryService, o.query);
  if (m.command) {
    router.service(CommandService, o.command, o.commandAuth ? { interceptors: [o.commandAuth] } : {});
  }
  if (m.admin) router.service(AdminService, o.admin);
}
