import type { CueError, CueValue, EvalOptions, Meter } from "../cue/index.js";
import { compile } from "../cue/index.js";
import type { Config } from "../model/config.js";
import { diagnosticsFromCueErrors } from "./cue-diagnostics.js";
import { decodeConfig } from "./decode.js";
import type { ConfigDiagnostic } from "./diagnostic.js";
import { formatPath, sortDiagnostics } from "./diagnostic.js";
import { budgetMessage, type EvalBudget, evalBudget } from "./eval-budget.js";
import { foldRepeats } from "./instances.js";
import { createLocator } from "./locate.js";
import { ownErrors } from "./own-errors.js";
import { SCHEMA_FILE_NAME, schemaSource } from "./schema-source.js";
import { checkSemantics } from "./semantic.js";
import type { ConfigProfile } from "./type-checks.js";
import { checkTypes, explainedBy } from "./type-checks.js";

/** A document to load: its name (used in diagnostics), its text, and the profile to validate under. */
export interface LoadConfigInput {
  readonly file: string;
  readonly text: string;
  readonly profile?: ConfigProfile;
  /**
   * The server's listen address as the document may read it, `_lookout.listen` (default
   * DEFAULT_LISTEN): the bundled example checks Lookout's own port through it.
   */
  readonly listen?: string;
  /** Called with each phase's wall time in milliseconds (benchmarks use it to say where time goes). */
  readonly onPhase?: (phase: LoadPhase, ms: number) => void;
  /**
   * Called once the load is done with what its evaluation spent and the budget it had
   * (eval-budget.ts): tests and benchmarks read it.
   */
  readonly onSpent?: (spent: Readonly<Meter>, budget: EvalBudget) => void;
}

/** The loader's phases, in order. */
export type LoadPhase = "schema" | "compile" | "unify" | "export" | "decode" | "semantic";

export type LoadConfigResult =
  | { readonly ok: true; readonly config: Config }
  | { readonly ok: false; readonly diagnostics: readonly ConfigDiagnostic[] };

let compiledSchema: CueValue | undefined;

/** The address `_lookout.listen` holds when no server passed one (`lookout validate`). */
export const DEFAULT_LISTEN = "127.0.0.1:8080";

/**
 * What Lookout tells the document about itself, as a second file of the same instance: the hidden
 * field `_lookout` is reserved. `listen` is the address a client on this machine reaches the
 * server at: `-listen :8080` or `0.0.0.0:8080` becomes `127.0.0.1:8080`, `[::]:8080` `[::1]:8080`.
 */
export function lookoutFile(listen: string): { name: string; text: string } {
  const local = listen
    .replace(/^(?:0\.0\.0\.0)?:(\d+)$/, "127.0.0.1:$1")
    .replace(/^\[::\]:(\d+)$/, "[::1]:$1");
  return { name: "lookout-flags.cue", text: `_lookout: listen: ${JSON.stringify(local)}\n` };
}

/** The schema, compiled once per process; it is immutable, and every load unifies with it. */
function schema(): CueValue {
  if (compiledSchema !== undefined) return compiledSchema;
  const value = compile([{ name: SCHEMA_FILE_NAME, text: schemaSource().text }]);
  // Its syntax only: evaluating all of it for errors costs every process ~0.1 s, and the shipped
  // schema has none (schema-source.test.ts).
  if (value.compileErrors.length > 0) {
    const first = value.compileErrors[0];
    throw new Error(`lookout: schema.cue does not compile: ${first?.message ?? "unknown error"}`);
  }
  compiledSchema = value;
  return value;
}

/**
 * The one configuration loader: startup, SIGHUP, `ValidateConfig` and `ApplyConfig` all call it.
 * It evaluates the document with the CUE engine, unifies it with `#Schema`, decodes the result
 * into the immutable Config and checks what the schema cannot (semantic.ts). Every problem comes
 * back as a diagnostic at the user's file:line:column, sorted. It never throws and has no side
 * effects, so a rejected document changes nothing. Its evaluation is bounded by the document's
 * budget (eval-budget.ts): a document that needs more is rejected with one diagnostic.
 */
export function loadConfig(input: LoadConfigInput): LoadConfigResult {
  const meter: Meter = { steps: 0, vertices: 0 };
  const bytes = Buffer.byteLength(input.text, "utf8");
  const budget = evalBudget(bytes);
  try {
    return load(input, meter, bytes, budget);
  } finally {
    input.onSpent?.(meter, budget);
  }
}

function load(input: LoadConfigInput, meter: Meter, bytes: number, budget: EvalBudget): LoadConfigResult {
  const { file, text, profile } = input;
  let t = performance.now();
  const phase = (name: LoadPhase): void => {
    const now = performance.now();
    input.onPhase?.(name, now - t);
    t = now;
  };
  try {
    const s = schema();
    phase("schema");
    // The budget scales with the document (eval-budget.ts). One meter for the whole load: the
    // passes below (and the diagnostics' own lookups and exports of the document) draw on one
    // budget, so none of them can multiply it.
    const limits: EvalOptions = { maxSteps: budget.maxSteps, maxVertices: budget.maxVertices, meter };
    const spent = (): LoadConfigResult | undefined => overBudget(meter, file, bytes);
    const user = compile([{ name: file, text }, lookoutFile(input.listen ?? DEFAULT_LISTEN)], limits);
    phase("compile");
    if (user.compileErrors.length > 0) {
      const diagnostics = diagnosticsFromCueErrors(user.compileErrors, {
        file,
        text,
        user,
        schema: s,
        profile,
      });
      return spent() ?? fail(diagnostics);
    }
    const root = s.lookup(["#Schema"]);
    if (root === undefined) throw new Error("lookout: schema.cue has no #Schema");
    // A refused document's repeated errors (one template's mistake in every host) are checked
    // in later hosts only where they are (cue/eval/fold-repeats.ts); a valid one is unaffected.
    const unified = root.unify(user, { ...limits, foldRepeatedErrors: true });
    phase("unify");
    const exported = unified.export();
    phase("export");
    if (!exported.ok) {
      const over = spent();
      if (over !== undefined) return over;
      // The document's own mistakes are reported as its own, without the schema's (own-errors.ts).
      const own = ownErrors(user, exported.errors, file);
      if (own.length > 0) {
        const diagnostics = diagnosticsFromCueErrors(own, { file, text, user, schema: s, profile });
        return spent() ?? fail(diagnostics);
      }
      // export() stops at evaluation errors; `cue vet -c` also lists the missing required fields,
      // so the user sees every problem in one run.
      const known = new Set(exported.errors);
      let seen: Set<string> | undefined;
      let more: CueError[] | undefined;
      for (const e of unified.validate({ concrete: true })) {
        if (known.has(e)) continue;
        seen ??= new Set(exported.errors.map((x) => `${x.path.join(".")}\0${x.message}`));
        if (seen.has(`${e.path.join(".")}\0${e.message}`)) continue;
        more ??= [];
        more.push(e);
      }
      // Nothing added: the same list as ownErrors folded, whose hosts are then not folded again.
      const all = more === undefined ? exported.errors : [...exported.errors, ...more];
      const diagnostics = diagnosticsFromCueErrors(all, { file, text, user, schema: s, profile });
      return spent() ?? fail(diagnostics);
    }
    const locator = createLocator(exported.data, exported.positions, file, text);
    const diagnostics: ConfigDiagnostic[] = [];
    // The schema has already refused unknown types and broken snmp choices; only a profile can
    // refuse more (the decoder still guards against a schema/decoder mismatch).
    const refused = profile === undefined ? [] : checkTypes(exported.data, profile);
    for (const r of refused) {
      const at = locator.at(r.reportAt);
      diagnostics.push({ message: `${formatPath(r.reportAt)}: ${r.message}`, ...at });
    }
    const decoded = decodeConfig(exported.data, locator);
    phase("decode");
    if (!decoded.ok) return spent() ?? fail(foldRepeats([...diagnostics, ...decoded.diagnostics]));
    diagnostics.push(...checkSemantics(decoded.config, locator, (path) => explainedBy(refused, path)));
    phase("semantic");
    if (diagnostics.length > 0) return spent() ?? fail(foldRepeats(diagnostics));
    return { ok: true, config: decoded.config };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return fail([
      { message: `internal error while loading the configuration: ${message}`, file, line: 1, column: 1 },
    ]);
  }
}

/**
 * A document that ran out of its evaluation budget (eval-budget.ts) is refused with one
 * diagnostic, whatever else its evaluation reported on the way (past the limit, every pass
 * reports only the limit).
 */
function overBudget(meter: Meter, file: string, bytes: number): LoadConfigResult | undefined {
  const b = evalBudget(bytes);
  if (meter.steps <= b.maxSteps && meter.vertices <= b.maxVertices) return undefined;
  const what =
    meter.steps > b.maxSteps ? `more than ${b.maxSteps} steps` : `more than ${b.maxVertices} values`;
  return fail([{ message: budgetMessage(bytes, what), file, line: 1, column: 1 }]);
}

function fail(diagnostics: readonly ConfigDiagnostic[]): LoadConfigResult {
  return { ok: false, diagnostics: sortDiagnostics(diagnostics) };
}
