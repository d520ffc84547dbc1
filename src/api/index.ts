/**
 * The API: the ConnectRPC services (Command, Query, Admin) on one port in three wire formats
 * (Connect JSON over HTTP/1.1, gRPC over h2c, gRPC-Web), their mounting rules, the gate of
 * src/auth on every route and fast path (caller.ts), login and logout, audit of API calls, per-RPC metrics and the mapping of internal failures to Connect codes. The hot RPCs —
 * passive ingestion and ListStatus — are served before the router by a fast path that answers as
 * it does (unary-fast-path.ts). Generated code lives in gen/ and is produced from proto/ by
 * `npm run generate`.
 */
export {
  type AdminApplyBy,
  type AdminCheck,
  type AdminDeps,
  type AdminHistory,
  createAdminService,
} from "./admin-service.js";
export { type ApiAudit, createApiAudit } from "./api-audit.js";
export { createCommandService } from "./command-service.js";
export { createHostCheck, isAllowedHostEntry } from "./host-check.js";
export { createHttpHandler, type HttpHandlerOptions } from "./http-handler.js";
export { DualProtocolServer } from "./listener.js";
export { LOGIN_PATH, LOGOUT_PATH, loginRoutes } from "./login.js";
export { createQueryService, type SinkStatus } from "./query-service.js";
export { mountedServices } from "./routes.js";
