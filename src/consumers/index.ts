/**
 * The log's consumers: one shape for everything that reads the committed event log and must
 * neither lose nor repeat work across crashes (the notifier, the sinks). A consumer has a name, a
 * durable position and a `handle(batch) → how far it got`; the host runs each on its own, stores
 * positions in `<data-dir>/consumers.db`, and trims the log only below every consumer's position
 * and after the retention (docs/storage.md, "Consumers and retention").
 */
export type {
  AddOptions,
  ConsumerStatus,
  LogConsumer,
  RemoteConsumer,
  RemoteProgress,
  StartAt,
} from "./consumer.js";
export { type ConsumerState, openConsumerState } from "./consumer-state.js";
export { ConsumerHost, type ConsumerHostOptions, type RetentionOptions } from "./host.js";
