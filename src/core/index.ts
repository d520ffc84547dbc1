/**
 * Core: the façade the app wires — the store (event log, writer thread, projection) bound to the
 * state engine, with synchronous all-or-nothing validation of command batches and the engine's
 * timers driven by the injected clock. `Core.open` / `submit` / `view` / `applyConfig` / `flush` /
 * `close`; the contract is on the class and in docs/storage.md.
 */
export {
  type CommandResult,
  type CommandSource,
  Core,
  type CoreObserver,
  type CoreOptions,
  type CoreView,
  type PreparedConfig,
  type SubmitOptions,
} from "./core.js";
export type { ResultsForm } from "./encoded-results.js";
export { type FleetShape, fleetConfig, fleetHost, fleetService } from "./fleet-config.js";
export { type PluginResultInput, preparePluginResult } from "./plugin-result.js";
export {
  PRECHECK_MAX_OBJECTS,
  type PrecheckView,
  precheckCommands,
  selectorPositions,
  targetKeys,
} from "./precheck.js";
export {
  type CommandInput,
  type SubmittedCommand,
  type ValidationContext,
  validateCommands,
} from "./validate.js";
