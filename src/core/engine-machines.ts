import { createEngine, type Engine, type EngineSnapshot, engineConfig } from "../engine/index.js";
import type { StateMachine, StateMachineFactory } from "../store/state-machine.js";
import { preparePluginResult } from "./plugin-result.js";

function machine(engine: Engine): StateMachine {
  return {
    apply: (command) => engine.apply(command),
    snapshot: () => engine.snapshot(),
    nextWakeup: () => engine.nextWakeup(),
    digest: () => engine.digest(),
  };
}

/**
 * The state engine (src/engine/) as the store's writer sees it. No clock: every command the writer
 * applies carries its own `at`.
 */
export const engineMachines: StateMachineFactory = {
  create: () => machine(createEngine()),
  // Rebuilt from literals on the writer's thread: a cloned config is twice the size.
  adopt: engineConfig,
  prepare: preparePluginResult,
  restore(snapshot, config) {
    const engine = createEngine();
    engine.restore(snapshot as EngineSnapshot, config);
    return machine(engine);
  },
};
