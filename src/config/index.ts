/**
 * Configuration: the CUE schema shipped with Lookout (schema.cue), and the one loader that startup,
 * SIGHUP, `ValidateConfig` and `ApplyConfig` share. `loadConfig` turns a user's document into the
 * immutable typed Config of src/model/config.ts, or into diagnostics at the user's
 * file:line:column. `loadConfigInWorker` runs the same loader on a worker thread, for reloads while
 * the server keeps serving. `runValidateCli` is `lookout validate`. See docs/configuration.md.
 */
export type { ConfigDiagnostic } from "./diagnostic.js";
export { formatDiagnostic } from "./diagnostic.js";
export { parseDurationMs } from "./duration.js";
export { type EvalBudget, evalBudget } from "./eval-budget.js";
export type { WorkerLoadInput } from "./load-in-worker.js";
export { loadConfigInWorker } from "./load-in-worker.js";
export type { LoadConfigInput, LoadConfigResult, LoadPhase } from "./loader.js";
export { loadConfig } from "./loader.js";
export * from "./patterns.js";
export {
  PLAN_MAX_NAMES,
  type PlanKind,
  type PlanSection,
  planConfig,
  planConfigInSteps,
  planSummary,
} from "./plan.js";
export { unifiedDiff } from "./text-diff.js";
export type { ConfigProfile } from "./type-checks.js";
export type { CliIo } from "./validate-cli.js";
export { runValidateCli, summarize } from "./validate-cli.js";
