import { Worker } from "node:worker_threads";
import { nativeRegexp } from "../../cue/index.js";
import type { HttpProbe } from "../../model/config.js";

/** The most of an expected text or pattern an output quotes. */
const QUOTE_MAX = 60;

/** What a body expectation found: the sentences for what is missing, or that the run was aborted. */
export type BodyVerdict =
  | { readonly aborted: false; readonly missing: readonly string[] }
  | { readonly aborted: true };

/**
 * What `expect_body` and `expect_body_regex` find missing in `body` (the first MiB of the
 * response, decoded as UTF-8), one sentence each. The pattern is RE2, as the loader checked it.
 * When V8 can run it with the same meaning (the CUE engine's translation of the common subset,
 * plus a leading `(?i)` as the `i` flag) it is matched here, in well under a millisecond per MiB;
 * anything else is matched by re2js on a worker thread (about a second per MiB), which `signal`
 * terminates. Matching time is linear in the body's size either way.
 */
export async function bodyFindings(
  probe: HttpProbe,
  body: string,
  signal: AbortSignal,
): Promise<BodyVerdict> {
  const missing: string[] = [];
  if (probe.expectBody !== undefined && !body.includes(probe.expectBody))
    missing.push(`body does not contain ${quote(probe.expectBody)}`);
  const pattern = probe.expectBodyRegex;
  if (pattern !== undefined) {
    const js = v8Regexp(pattern);
    const found = js !== null ? js.test(body) : await re2OnWorker(pattern, body, signal);
    if (found === "aborted") return { aborted: true };
    if (found === null) missing.push(`expect_body_regex ${quote(pattern)} is not an RE2 pattern`);
    else if (!found) missing.push(`body does not match ${quote(pattern)}`);
  }
  return { aborted: false, missing };
}

const CASELESS = "(?i)";
const caseless = new Map<string, RegExp | null>();

/** The pattern as a V8 RegExp with RE2's meaning, or null when only RE2 can run it. */
export function v8Regexp(pattern: string): RegExp | null {
  const plain = nativeRegexp(pattern);
  if (plain !== null || !pattern.startsWith(CASELESS)) return plain;
  let re = caseless.get(pattern);
  if (re === undefined) {
    const rest = nativeRegexp(pattern.slice(CASELESS.length));
    // Both fold case by Unicode's simple case folding (V8 with the u flag).
    re = rest === null ? null : new RegExp(rest.source, "iu");
    if (caseless.size > 1000) caseless.clear();
    caseless.set(pattern, re);
  }
  return re;
}

function re2OnWorker(
  pattern: string,
  body: string,
  signal: AbortSignal,
): Promise<boolean | null | "aborted"> {
  if (signal.aborted) return Promise.resolve("aborted");
  return new Promise((resolve) => {
    const worker = new Worker(new URL("./re2-worker.js", import.meta.url), {
      workerData: { pattern, body },
      resourceLimits: { maxOldGenerationSizeMb: 64 },
    });
    let settled = false;
    const settle = (v: boolean | null | "aborted"): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      void worker.terminate();
      resolve(v);
    };
    const onAbort = (): void => settle("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (v: boolean | null) => settle(v));
    worker.once("error", () => settle(null));
    worker.once("exit", () => settle(null));
  });
}

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text);
}
