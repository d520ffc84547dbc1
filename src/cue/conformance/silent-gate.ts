/**
 * The CI gate on silent wrong answers (issue 31): the conformance runner reports every figure and
 * gates on one, the "silently wrong" total, which must never rise. The ceiling is a number in a
 * checked-in file (`.ci/cue-silent-ceiling`), lowered as the engine improves: a change that adds a
 * silent wrong answer on the shared corpus fails CI, one that removes some says by how much the
 * file can go down.
 */

import { readFileSync } from "node:fs";

/** The ceiling the file holds (one non-negative integer; `#` comments allowed), or why it cannot be read. */
export function readSilentCeiling(file: string): number | string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return `silent-ceiling: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`;
  }
  const body = text
    .split("\n")
    .map((l) => l.replace(/#.*$/, "").trim())
    .filter((l) => l !== "");
  const n = body.length === 1 ? Number(body[0]) : Number.NaN;
  if (!Number.isInteger(n) || n < 0)
    return `silent-ceiling: ${file} must hold one non-negative integer, not ${JSON.stringify(body.join(" "))}`;
  return n;
}

/** Whether `silent` answers pass a ceiling of `ceiling` (from `file`), and the line that says so. */
export function silentVerdict(
  silent: number,
  ceiling: number,
  file: string,
): { ok: boolean; message: string } {
  if (silent > ceiling) {
    return {
      ok: false,
      message: `silent-ceiling: FAIL: ${silent} silently wrong answers, more than the ceiling of ${ceiling} in ${file}; a change made the engine give a value where CUE gives an error or another value (run with --list-failures and look for SILENT)`,
    };
  }
  if (silent < ceiling) {
    return {
      ok: true,
      message: `silent-ceiling: ok: ${silent} silently wrong answers, below the ceiling of ${ceiling} in ${file} (lower it to ${silent})`,
    };
  }
  return {
    ok: true,
    message: `silent-ceiling: ok: ${silent} silently wrong answers, the ceiling in ${file}`,
  };
}
