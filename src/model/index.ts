/**
 * The domain model: configuration, states, check results, object keys, and the clock and checker
 * seams. It imports nothing else from Lookout; every other module may import it.
 */
export * from "./check-result.js";
export * from "./checker.js";
export * from "./clock.js";
export * from "./config.js";
export * from "./logger.js";
export * from "./object-flags.js";
export * from "./object-ref.js";
export * from "./state.js";
