/**
 * Entry module of the store's writer thread: binds the state engine to the store's writer. Core
 * starts it through Store.open (src/core/core.ts).
 */
import { createEngine, type Engine, type EngineSnapshot } from "../engine/index.js";
import type { StateMachine } from "../store/state-machine.js";
import { runWriterThread } from "../store/writer-thread.js";

function machine(engine: Engine): StateMachine {
  return {
    apply: (command) => engine.apply(command),
    snapshot: () => engine.snapshot(),
    nextWakeup: () => engine.nextWakeup(),
    digest: () => engine.digest(),
  };
}

// No clock: every command the writer applies carries its own `at`.
runWriterThread({
  create: () => machine(createEngine()),
  restore(snapshot, config) {
    const engine = createEngine();
    engine.restore(snapshot as EngineSnapshot, config);
    return machine(engine);
  },
});
