import { fromBinary, fromJsonString } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { Core } from "../core/core.js";
import {
  RESULTS_DESCRIBED,
  type ResultsDescription,
  type ResultsForm,
  readResultsDescription,
} from "../core/encoded-results.js";
import type { PluginResultInput } from "../core/plugin-result.js";
import type { Logger } from "../model/logger.js";
import { type ExitStatus, passiveHostStatus } from "../model/state.js";
import { RejectedError } from "../store/errors.js";
import {
  type ProcessCheckResultRequest,
  ProcessCheckResultRequestSchema,
  type ProcessCheckResultsRequest,
  ProcessCheckResultsRequestSchema,
} from "./gen/svc/v1/command_service_pb.js";
import { toConnectError } from "./pipeline-errors.js";
import { type BodyFormat, parseBinary } from "./unary-fast-path.js";

export type { BodyFormat };

/** How a submission of passive results ended. */
export type IngestAnswer =
  /** `described`: the results' count and first objects, for the audit record. */
  | { readonly ok: true; readonly accepted: number; readonly described: ResultsDescription }
  /**
   * `decoding`: the body could not be decoded — an error Connect reports before any interceptor
   * runs (so the RPC metrics do not count it). `described` when the results were decoded.
   */
  | {
      readonly ok: false;
      readonly error: ConnectError;
      readonly decoding: boolean;
      readonly described?: ResultsDescription;
    };

/**
 * ProcessCheckResults (`batch`) and ProcessCheckResult served from the request body itself: what
 * the ingestion fast path (src/api/ingest-fast-path.ts) calls instead of the Connect router.
 */
export interface ResultsIngest {
  /**
   * Submits a request body in `format`, which must own its whole ArrayBuffer (it is transferred):
   * decoded and validated on the writer's thread (Core.submitEncoded). A body the writer leaves
   * (malformed, or a corner it does not decode) comes back and is decoded here with protobuf-es,
   * exactly as Connect decodes it, then submitted as the service would. Never rejects.
   */
  submit(batch: boolean, format: BodyFormat, body: Uint8Array): Promise<IngestAnswer>;
}

/** Connect's JSON options for requests: unknown fields are ignored. */
const JSON_OPTIONS = { ignoreUnknownFields: true };
/**
 * Unknown fields are skipped, not kept: a result never carries them, and keeping them costs
 * protobuf-es several times the time on a body made of them — time taken from reads, on this thread.
 */
const BINARY_OPTIONS = { readUnknownFields: false };
const utf8 = new TextDecoder();

/** The fast path's submissions into `core`, with the service's error mapping. */
export function createResultsIngest(
  core: Pick<Core, "submit" | "submitEncoded" | "clock">,
  logger?: Logger,
): ResultsIngest {
  return {
    async submit(batch, format, body) {
      const field = batch ? "results" : undefined;
      let described: ResultsDescription | undefined;
      try {
        const outcome = await core.submitEncoded(
          `${batch ? "results" : "result"}-${format}` satisfies ResultsForm,
          body,
          "api",
        );
        if (outcome.kind === "enqueued") {
          described =
            outcome.described === undefined
              ? { count: outcome.accepted, objects: [] }
              : readResultsDescription(outcome.described);
          return { ok: true, accepted: outcome.accepted, described };
        }
        let results: PluginResultInput[];
        try {
          const now = core.clock.now();
          results = batch
            ? prepareResults(decodeBatch(format, outcome.body).results, now)
            : [checkResult(decodeOne(format, outcome.body), now)];
        } catch (e) {
          return { ok: false, error: ConnectError.from(e), decoding: true };
        }
        described = describeRequests(results.map((r) => r.result));
        await core.submit(results, { source: "api" });
        return { ok: true, accepted: results.length, described };
      } catch (e) {
        // Refused on the writer's thread: its decoder described what it refused.
        if (described === undefined && e instanceof RejectedError && Array.isArray(e.detail))
          described = readResultsDescription(e.detail);
        const error = toConnectError(e, logger, field);
        return described === undefined
          ? { ok: false, error, decoding: false }
          : { ok: false, error, decoding: false, described };
      }
    },
  };
}

/**
 * Decodes a request body as the router does, throwing its ConnectError (a body that does not parse,
 * binary or JSON, is `invalid_argument`, protobuf-es's message kept).
 */
export function decodeRequest(batch: boolean, format: BodyFormat, body: Uint8Array): unknown {
  return batch ? decodeBatch(format, body) : decodeOne(format, body);
}

function decodeBatch(format: BodyFormat, body: Uint8Array): ProcessCheckResultsRequest {
  return format === "proto"
    ? parseBinary(() => fromBinary(ProcessCheckResultsRequestSchema, body, BINARY_OPTIONS))
    : parseJson(() => fromJsonString(ProcessCheckResultsRequestSchema, utf8.decode(body), JSON_OPTIONS));
}

function decodeOne(format: BodyFormat, body: Uint8Array): ProcessCheckResultRequest {
  return format === "proto"
    ? parseBinary(() => fromBinary(ProcessCheckResultRequestSchema, body, BINARY_OPTIONS))
    : parseJson(() => fromJsonString(ProcessCheckResultRequestSchema, utf8.decode(body), JSON_OPTIONS));
}

function parseJson<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    throw ConnectError.from(e, Code.InvalidArgument);
  }
}

/** The description of results (for the audit record): their count and first objects. */
export function describeRequests(
  results: readonly { readonly host: string; readonly service?: string | undefined }[],
): ResultsDescription {
  const n = Math.min(results.length, RESULTS_DESCRIBED);
  const objects: [string, string | null][] = new Array(n);
  for (let i = 0; i < n; i++) {
    const r = results[i] as { host: string; service?: string | undefined };
    objects[i] = [r.host, r.service ?? null];
  }
  return { count: results.length, objects };
}

/** The commands of a decoded batch, stamped `now` where a result has no time of its own. */
export function prepareResults(
  results: readonly ProcessCheckResultRequest[],
  now: number,
): PluginResultInput[] {
  const commands: PluginResultInput[] = new Array(results.length);
  for (let i = 0; i < results.length; i++) {
    commands[i] = checkResult(results[i] as ProcessCheckResultRequest, now);
  }
  return commands;
}

/**
 * The plugin output goes as received: Core has the writer's thread parse it (src/core/plugin-result.ts),
 * off the thread that decodes requests and serves reads.
 */
export function checkResult(r: ProcessCheckResultRequest, now: number): PluginResultInput {
  // One fixed shape (no conditional spreads): ingestion builds tens of thousands per second.
  return {
    type: "ProcessCheckResult",
    parse: true,
    result: {
      host: r.host,
      service: r.service,
      // Validated by Core (0..3); the cast only carries the number there. A host's is its state.
      exitStatus: (r.service === undefined ? passiveHostStatus(r.exitStatus) : r.exitStatus) as ExitStatus,
      output: r.output,
      checkedAt: r.checkedAt === undefined ? now : timestampMs(r.checkedAt),
      durationMs: 0,
      source: "passive",
    },
  };
}
