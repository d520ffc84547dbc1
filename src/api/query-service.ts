import type { ServiceImpl } from "@connectrpc/connect";
import type { QueryService } from "./gen/svc/v1/query_service_pb.js";

export interface QueryServiceDeps {
  /** The running binary's version (`vX.Y.Z` or `dev`). */
  readonly version: string;
}

/**
 * The read service. RPCs not listed here answer `unimplemented` (the router fills them in) until
 * the projection that serves them exists: no read ever returns made-up data.
 */
export function createQueryService(deps: QueryServiceDeps): Partial<ServiceImpl<typeof QueryService>> {
  return {
    getServerInfo: () => ({ version: deps.version }),
  };
}
