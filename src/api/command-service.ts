import type { ServiceImpl } from "@connectrpc/connect";
import type { CommandService } from "./gen/svc/v1/command_service_pb.js";

/**
 * The write service. Until the command pipeline exists, every RPC answers `unimplemented` (the
 * router fills in missing methods): a write is never acknowledged without being enqueued.
 */
export function createCommandService(): Partial<ServiceImpl<typeof CommandService>> {
  return {};
}
