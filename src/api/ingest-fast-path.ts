import { ConnectError } from "@connectrpc/connect";
import { type ApiAudit, resultsCommand } from "./api-audit.js";
import { GateRefusal } from "./caller.js";
import { decodeRequest, type IngestAnswer, type ResultsIngest } from "./results-ingest.js";
import type { UnaryMethod as Method, UnaryCall, UnaryMethod, UnaryOutcome } from "./unary-fast-path.js";

const SERVICE = "svc.v1.CommandService";

/**
 * ProcessCheckResults and ProcessCheckResult as fast-path methods (src/api/unary-fast-path.ts):
 * over gRPC and Connect unary (binary and JSON), uncompressed, this thread only frames the request
 * — the body goes to the writer's thread undecoded (ResultsIngest), where it is decoded, validated
 * and enqueued, and the call audited. The service's gate (`authorize`) runs first; a deadline that passes first is
 * answered `deadline_exceeded` (the batch may still be enqueued, as with any deadline). Answers are
 * the router's, pinned case by case in ingest-fast-path.test.ts.
 */
export function ingestMethods(
  ingest: ResultsIngest,
  authorize: Method["authorize"],
  audit: ApiAudit,
): UnaryMethod[] {
  const method = (name: "ProcessCheckResults" | "ProcessCheckResult", batch: boolean): UnaryMethod => ({
    service: SERVICE,
    name,
    json: true,
    // The answers are far below the size Connect compresses, whatever the client accepts.
    grpcCompression: true,
    ...(authorize === undefined
      ? {}
      : {
          authorize(credentials, peer) {
            const admitted = authorize(credentials, peer);
            // Refused writes are audited, as the router's gate does, with whom the gate resolved.
            if (admitted instanceof ConnectError)
              audit.call(
                admitted instanceof GateRefusal ? admitted.caller : { peer },
                `/${SERVICE}/${name}`,
                { Type: name },
                admitted,
              );
            return admitted;
          },
        }),
    check: (format, body) => void decodeRequest(batch, format, body),
    async serve(call, body, caller) {
      const result = await ingest.submit(batch, call.format, body);
      // The results were decoded on the writer's thread, which described them (count, objects).
      // A body that does not decode is refused before the router's interceptors, so not audited.
      if (result.ok || !result.decoding)
        audit.call(
          caller,
          `/${SERVICE}/${name}`,
          resultsCommand(name, result.described),
          result.ok ? undefined : result.error,
        );
      return outcome(call, batch, result);
    },
  });
  return [method("ProcessCheckResults", true), method("ProcessCheckResult", false)];
}

function outcome(call: UnaryCall, batch: boolean, result: IngestAnswer): UnaryOutcome {
  if (!result.ok) return { error: result.error, counted: !result.decoding };
  return { body: responseMessage(call, batch, result.accepted) };
}

/**
 * ProcessCheckResultsResponse{accepted} or the empty ProcessCheckResultResponse, as protobuf-es
 * writes them, after the room the call leaves for an envelope's header.
 */
function responseMessage(call: UnaryCall, batch: boolean, accepted: number): Uint8Array {
  if (call.format === "json") {
    return new TextEncoder().encode(batch && accepted !== 0 ? `{"accepted":${accepted}}` : "{}");
  }
  const out: number[] = new Array(call.room).fill(0);
  if (!batch || accepted === 0) return new Uint8Array(out);
  out.push(0x08);
  for (let n = accepted; ; n >>>= 7) {
    if (n < 0x80) {
      out.push(n);
      break;
    }
    out.push((n & 0x7f) | 0x80);
  }
  return new Uint8Array(out);
}
