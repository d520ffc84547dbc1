import { RE2JS } from "re2js";
import { nativeRegexp } from "../../cue/index.js";
import type { HttpProbe } from "../../model/config.js";

/** The most of an expected text or pattern an output quotes. */
const QUOTE_MAX = 60;

/**
 * What `expect_body` and `expect_body_regex` find missing in `body` (the first MiB of the
 * response, decoded as UTF-8), one sentence each. The pattern is RE2, as the loader checked it:
 * matched by the JavaScript engine when it is in the subset whose meaning both share (the CUE
 * engine's translation), by re2js otherwise, so matching stays linear in the body's size.
 */
export function bodyFindings(probe: HttpProbe, body: string): string[] {
  const out: string[] = [];
  if (probe.expectBody !== undefined && !body.includes(probe.expectBody))
    out.push(`body does not contain ${quote(probe.expectBody)}`);
  const pattern = probe.expectBodyRegex;
  if (pattern !== undefined) {
    const found = matches(pattern, body);
    if (found === undefined) out.push(`expect_body_regex ${quote(pattern)} is not an RE2 pattern`);
    else if (!found) out.push(`body does not match ${quote(pattern)}`);
  }
  return out;
}

function matches(pattern: string, body: string): boolean | undefined {
  const js = nativeRegexp(pattern);
  if (js !== null) return js.test(body);
  try {
    return RE2JS.compile(pattern).matcher(body).find();
  } catch {
    return undefined;
  }
}

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text);
}
