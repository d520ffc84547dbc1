import type { PerfDatum } from "../model/check-result.js";
import { passiveHostStatus } from "../model/state.js";
import { parsePluginOutput } from "../nagios/index.js";
import { RejectedError } from "../store/errors.js";
import type { KnownObjects } from "../store/state-machine.js";
import type { AheadDecoder, SubmissionDecoder } from "../store/submission.js";
import type { CompactResult, ParsedCompactResult } from "./plugin-result.js";
import { decodeResultsBinary } from "./results-binary.js";
import { decodeResultsJson } from "./results-json.js";
import { validateResult } from "./validate.js";

/**
 * The wire forms in which passive check results reach the writer undecoded: a
 * `svc.v1.ProcessCheckResultsRequest` (`results`) or one `svc.v1.ProcessCheckResultRequest`
 * (`result`), in protobuf binary (`proto`) or JSON (`json`) — the request body of the API's
 * ProcessCheckResults and ProcessCheckResult, as Connect and gRPC clients send it.
 */
export type ResultsForm = "results-proto" | "results-json" | "result-proto" | "result-json";

const utf8 = new TextDecoder();

/** How many of a batch's objects its description names. */
export const RESULTS_DESCRIBED = 10;

/**
 * What a submission of results was, for its audit record: how many results, and the objects of
 * the first RESULTS_DESCRIBED (`[host, service or null]`), in order.
 */
export interface ResultsDescription {
  readonly count: number;
  readonly objects: readonly (readonly [host: string, service: string | null])[];
}

/**
 * The description of decoded results as the writer sends it back (SubmissionDecoder.describe): a
 * flat array, `[count, host, service or null, host, service or null, ...]`.
 */
export function describeResults(results: readonly CompactResult[]): (string | number | null)[] {
  const n = Math.min(results.length, RESULTS_DESCRIBED);
  const out: (string | number | null)[] = [results.length];
  for (let i = 0; i < n; i++) {
    const r = results[i] as CompactResult;
    out.push(r[0], r[1]);
  }
  return out;
}

/** A description in the writer's flat form (describeResults) as a ResultsDescription. */
export function readResultsDescription(flat: readonly unknown[]): ResultsDescription {
  const objects: [string, string | null][] = [];
  for (let i = 1; i + 1 < flat.length; i += 2)
    objects.push([flat[i] as string, flat[i + 1] as string | null]);
  return { count: flat[0] as number, objects };
}

/**
 * The writer's decoder of passive results in a wire form (see ResultsForm): decoded straight to
 * the compact logged form (a host's status read as its state: passiveHostStatus), then validated
 * with the rules of Core.submit (src/core/validate.ts)
 * against the config in force, all-or-nothing, the refused result's position in the RejectedError.
 * A body it does not decode exactly as protobuf-es would comes back undecoded (undefined).
 */
export const encodedResults: SubmissionDecoder = {
  decode(kind, body, at, objects) {
    const results = decode(kind as ResultsForm, body, at);
    if (results === undefined) return undefined;
    for (let i = 0; i < results.length; i++) {
      const r = results[i] as CompactResult;
      // A host's status is its state (0 UP, 1 DOWN), as in Icinga 2's process-check-result.
      if (r[1] === null) r[2] = passiveHostStatus(r[2]);
    }
    admit(results, objects);
    return results;
  },
  describe: (_kind, logged) => describeResults(logged as CompactResult[]),
  ahead: {
    module: new URL("./decoder-worker.js", import.meta.url),
    admit: (_kind, elements, objects) => admit(elements as readonly CompactResult[], objects),
  },
};

/**
 * The decoding thread's half of encodedResults (src/core/decoder-worker.ts): decodes as `decode`
 * does and parses each result's plugin output there too (what preparePluginResult would do on the
 * writer's thread), so that the writer admits and applies the results without either.
 */
export const encodedResultsAhead: AheadDecoder = {
  decode(kind, body, at) {
    const results = decode(kind as ResultsForm, body, at);
    if (results === undefined) return undefined;
    const prepared: (CompactResult | ParsedCompactResult)[] = new Array(results.length);
    for (let i = 0; i < results.length; i++) {
      const r = results[i] as CompactResult;
      if (r[1] === null) r[2] = passiveHostStatus(r[2]);
      const p = parsePluginOutput(r[3]);
      // The text is not needed once parsed; a result whose figures JSON would change stays unparsed.
      prepared[i] = faithful(p.perfdata)
        ? [r[0], r[1], r[2], "", r[4], p.output, p.longOutput, p.perfdata]
        : r;
    }
    return { logged: JSON.stringify(results), prepared: JSON.stringify(prepared) };
  },
};

/** Validates decoded results against `objects` (src/core/validate.ts), all-or-nothing. */
function admit(results: readonly CompactResult[], objects: KnownObjects): void {
  for (let i = 0; i < results.length; i++) {
    const [host, service, exitStatus, , checkedAt] = results[i] as CompactResult;
    try {
      validateResult(objects, host, service ?? undefined, exitStatus, checkedAt);
    } catch (e) {
      if (e instanceof RejectedError)
        throw new RejectedError(e.reason, e.message, i, describeResults(results));
      throw e;
    }
  }
}

/** Whether JSON gives these points back as they are (no infinity, no negative zero). */
function faithful(points: readonly PerfDatum[]): boolean {
  for (const p of points) {
    if (!exact(p.value) || (p.min !== undefined && !exact(p.min)) || (p.max !== undefined && !exact(p.max)))
      return false;
  }
  return true;
}

const exact = (n: number): boolean => Number.isFinite(n) && !Object.is(n, -0);

function decode(form: ResultsForm, body: Uint8Array, at: number): CompactResult[] | undefined {
  switch (form) {
    case "results-proto":
      return decodeResultsBinary(body, true, at);
    case "result-proto":
      return decodeResultsBinary(body, false, at);
    // Text as Connect makes it of a JSON body: UTF-8, replacement characters, a leading BOM dropped.
    case "results-json":
      return decodeResultsJson(utf8.decode(body), true, at);
    case "result-json":
      return decodeResultsJson(utf8.decode(body), false, at);
    default: {
      const never: never = form;
      throw new Error(`unknown form of results ${String(never)}`);
    }
  }
}
