import type { Command } from "../model/commands.js";
import type { EngineEvent } from "../model/events.js";

/**
 * What the writer needs from the state engine (src/engine/): a deterministic machine that turns
 * commands into events and whose state can be saved and restored. Determinism is the contract that
 * makes recovery work: re-applying the logged commands to a restored snapshot must reproduce the
 * state the crashed process had.
 *
 * `C` is the form of a configuration the machines keep (the engine's compiled tables): the writer
 * never holds a typed Config, only that form, made once per config it receives or reads back.
 */
export interface StateMachine<C> {
  /** Applies one command; never an ApplyConfig (the writer calls `applyConfig` for those). */
  apply(command: Command): readonly EngineEvent[];
  /** Swaps the config in force, as an ApplyConfig command stamped `at` would. */
  applyConfig(config: C, at: number, digest: string): readonly EngineEvent[];
  /** Plain JSON data (no Maps or classes). */
  snapshot(): unknown;
  /**
   * Whether an operator turned the passive checks of an object off, in the state applied so far
   * (false for an object the machine does not have): what results decoded on the writer's thread
   * are refused by at once. Absent: never.
   */
  passiveChecksOff?(host: string, service: string | undefined): boolean;
  /** When the next timer is due (ms since the epoch), or undefined when none is pending. */
  nextWakeup(): number | undefined;
  /** The digest of the configuration in force. */
  digest(): string;
}

/** Which objects a configuration has: what submissions are validated against. */
export interface KnownObjects {
  hasHost(host: string): boolean;
  hasService(host: string, service: string): boolean;
  /**
   * Whether an operator turned the object's passive checks off (SetObjectFlags), as far as the
   * validating side knows: a passive result for it is refused at once. Absent: never.
   */
  passiveChecksOff?(host: string, service: string | undefined): boolean;
}

/** How the writer makes state machines and handles the configs they run with. */
export interface StateMachineFactory<C> {
  /** A machine without objects. */
  create(): StateMachine<C>;
  /** A machine from a snapshot and the config in force when it was taken. */
  restore(snapshot: unknown, config: C): StateMachine<C>;
  /**
   * The kept form of a config as the owning thread sent it (Store's `writerConfig` form, after a
   * structured clone).
   */
  adopt(sent: unknown): C;
  /** The text the writer logs for a config (its configs table). */
  encode(config: C): string;
  /** Reads back what `encode` wrote, or what earlier versions logged. */
  decode(text: string): C;
  /** The objects of a config, for validating submissions against it. */
  objects(config: C): KnownObjects;
  /**
   * Turns one element of a logged batch (parsed JSON) into the command to apply, on the writer's
   * thread; `at` is the batch's time, for elements that carry none. Work a submitter left to the
   * writer (a compact form to expand, plugin output to parse) is done here, live and on every
   * replay alike. Default: the element is the command, stamped with `at` unless it has its own.
   */
  prepare?(logged: unknown, at: number): Command;
}
