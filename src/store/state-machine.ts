import type { Command } from "../model/commands.js";
import type { Config } from "../model/config.js";
import type { EngineEvent } from "../model/events.js";

/**
 * What the writer needs from the state engine (src/engine/): a deterministic machine that turns
 * commands into events and whose state can be saved and restored. Determinism is the contract that
 * makes recovery work: re-applying the logged commands to a restored snapshot must reproduce the
 * state the crashed process had.
 */
export interface StateMachine {
  apply(command: Command): readonly EngineEvent[];
  /** Plain JSON data (no Maps or classes). */
  snapshot(): unknown;
  /** When the next timer is due (ms since the epoch), or undefined when none is pending. */
  nextWakeup(): number | undefined;
  /** The digest of the configuration in force. */
  digest(): string;
}

/** How the writer makes state machines: fresh (no objects), or from a snapshot and its config. */
export interface StateMachineFactory {
  create(): StateMachine;
  restore(snapshot: unknown, config: Config): StateMachine;
  /**
   * The form of a config the machines keep, made on the writer's thread from every config it
   * receives or reads back from the log (which then holds that form). Default: the config as is.
   * Objects that arrive by structured clone or JSON are bigger than ones built from literals, so a
   * machine that keeps a config for a long time rebuilds it here.
   */
  adopt?(config: Config): Config;
  /**
   * Turns one element of a logged batch (parsed JSON, `at` stamped) into the command to apply, on
   * the writer's thread: work a submitter left to the writer (e.g. parsing plugin output) is done
   * here, live and on every replay alike. Default: the element is the command.
   */
  prepare?(logged: Command): Command;
}
