/**
 * The evaluator's table tests (eval.test.ts, families.test.ts, cycle.test.ts): a CUE document and
 * either the JSON `cue export` prints (compact) or an error that must be reported at `path` with
 * one of the codes and part of the message, never a value there.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile, formatErrors } from "../index.js";

export interface EvalCase {
  readonly name: string;
  readonly src: string;
  readonly json?: string;
  readonly err?: { readonly path: string; readonly code: string | readonly string[]; readonly msg: string };
}

/**
 * One `it` per case under `title`. With `compileErrors`, errors found while building the value
 * count too (a cycle reported before export).
 */
export function evalCases(
  title: string,
  cases: readonly EvalCase[],
  o: { compileErrors?: boolean } = {},
): void {
  describe(title, () => {
    for (const c of cases) {
      it(c.name, () => {
        const v = compile([{ name: "in.cue", text: c.src }]);
        const r = v.toJSON(0);
        if (c.json !== undefined) {
          assert.ok(r.ok, r.ok ? "" : formatErrors(r.errors));
          assert.equal(r.text, c.json);
          return;
        }
        const want = c.err;
        assert.ok(want !== undefined, "a case wants json or err");
        assert.equal(r.ok, false, r.ok ? `unexpected success: ${r.text}` : "");
        const codes: readonly string[] = typeof want.code === "string" ? [want.code] : want.code;
        const errs = [...(o.compileErrors === true ? v.errors : []), ...(r.ok ? [] : r.errors)];
        const hit = errs.find(
          (e) => e.path.join(".") === want.path && codes.includes(e.code) && e.message.includes(want.msg),
        );
        assert.ok(hit, `want ${want.path}: [${codes.join("|")}] ${want.msg}\ngot:\n${formatErrors(errs)}`);
      });
    }
  });
}
