import { fromBinary } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { ListStatusRequestSchema } from "./gen/svc/v1/query_service_pb.js";
import type { StatusPager } from "./query-service.js";
import { parseBinary, type UnaryMethod } from "./unary-fast-path.js";

/**
 * ListStatus as a fast-path method (src/api/unary-fast-path.ts), for gRPC and Connect binary: the
 * hot read of every dashboard refresh, answered with the page written straight into the buffer that
 * goes on the wire (src/api/status-page.ts), without the router's per-call machinery. Connect JSON
 * is the router's. gRPC responses are sent uncompressed whatever the client accepts, as grpc-go and
 * grpc-java servers do by default: a page of 1,000 is ~170 KB, and gzip at Connect's level costs
 * both sides more CPU than the bytes cost on a LAN (docs/api.md). Connect responses are gzip'd when
 * the client accepts it, as the router does.
 */
export function listStatusMethod(pager: StatusPager, authorize: UnaryMethod["authorize"]): UnaryMethod {
  const decode = (body: Uint8Array) => parseBinary(() => fromBinary(ListStatusRequestSchema, body));
  return {
    service: "svc.v1.QueryService",
    name: "ListStatus",
    json: false,
    grpcCompression: false,
    ...(authorize === undefined ? {} : { authorize }),
    check: (_format, body) => void decode(body),
    serve(call, body) {
      let req: ReturnType<typeof decode>;
      try {
        req = decode(body);
      } catch (e) {
        // Connect parses before any interceptor runs: not counted.
        return { error: ConnectError.from(e), counted: false };
      }
      try {
        const body = pager(req, call.room);
        // A page of the past (`at`) is rebuilt off this thread first.
        if (body instanceof Promise) {
          return body.then(
            (b) => ({ body: b }),
            (e: unknown) => ({ error: ConnectError.from(e), counted: true }),
          );
        }
        return { body };
      } catch (e) {
        return { error: ConnectError.from(e), counted: true };
      }
    },
  };
}
