import {
  type CompiledConfig,
  compileConfig,
  createEngine,
  decodeCompiledConfig,
  type Engine,
  type EngineSnapshot,
  encodeCompiledConfig,
  isCompiledConfig,
  isEncodedCompiledConfig,
  lookupObject,
} from "../engine/index.js";
import type { Config } from "../model/config.js";
import { decodeJson } from "../store/json-codec.js";
import type { StateMachine, StateMachineFactory } from "../store/state-machine.js";
import { preparePluginResult } from "./plugin-result.js";

function machine(engine: Engine): StateMachine<CompiledConfig> {
  return {
    apply: (command) => engine.apply(command),
    applyConfig: (config, at, digest) => engine.applyCompiled(config, at, digest),
    snapshot: () => engine.snapshot(),
    nextWakeup: () => engine.nextWakeup(),
    passiveChecksOff: (host, service) => engine.switchedOff(host, service, "passiveChecks"),
    digest: () => engine.digest(),
  };
}

/**
 * The state engine (src/engine/) as the store's writer sees it. No clock: every command the writer
 * applies carries its own `at`. The writer keeps configs compiled (src/engine/compiled-config.ts):
 * Core sends them so (`compileConfig` on the owning thread), and they are logged as
 * `encodeCompiledConfig` writes them; config rows that earlier versions logged (a reduced typed
 * Config as Map-aware JSON) are compiled when read back.
 */
export const engineMachines: StateMachineFactory<CompiledConfig> = {
  create: () => machine(createEngine()),
  restore(snapshot, config) {
    const engine = createEngine();
    engine.restore(snapshot as EngineSnapshot, config);
    return machine(engine);
  },
  adopt(sent) {
    const c = sent as Config | CompiledConfig;
    return isCompiledConfig(c) ? c : compileConfig(c);
  },
  encode: encodeCompiledConfig,
  decode: (text) =>
    isEncodedCompiledConfig(text) ? decodeCompiledConfig(text) : compileConfig(decodeJson<Config>(text)),
  objects: (config) => ({
    hasHost: (host) => config.hostIndex.has(host),
    hasService: (host, service) => lookupObject(config, host, service) !== undefined,
  }),
  prepare: preparePluginResult,
};
