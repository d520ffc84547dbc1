import type { ServiceImpl } from "@connectrpc/connect";
import type { AdminService } from "./gen/svc/v1/admin_service_pb.js";

/**
 * The admin service (config validate/apply/read, audit). Mounted only with -auth-config and
 * without -read-only. Until identities and the config applier exist, every RPC answers
 * `unimplemented`.
 */
export function createAdminService(): Partial<ServiceImpl<typeof AdminService>> {
  return {};
}
