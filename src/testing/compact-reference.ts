import { type Timestamp, timestampMs } from "@bufbuild/protobuf/wkt";
import type { ProcessCheckResultRequest } from "../api/gen/svc/v1/command_service_pb.js";
import type { CompactResult } from "../core/plugin-result.js";

/**
 * The reference the writer-side decoders (src/core/results-binary.ts, results-json.ts) are pinned
 * to in their tests: what the API logs for a result protobuf-es decoded (src/api/results-ingest.ts
 * `checkResult`, then `loggedForm`), `now` standing in for a missing `checked_at`.
 */
export function compactReference(r: ProcessCheckResultRequest, now: number): CompactResult {
  return [
    r.host,
    r.service ?? null,
    r.exitStatus,
    r.output,
    r.checkedAt === undefined ? now : timestampMs(r.checkedAt as Timestamp),
  ];
}
