/**
 * The embeddable runtime: flags → options → App (start/stop/reload). Tests run it in-process or
 * start the real binary; src/main.ts only parses argv and hands over to it. Importing it sets the
 * server's V8 heap flags (v8-heap.ts) before anything else of Lookout runs.
 */
// First: the server's V8 heap flags, before anything of Lookout allocates.
import "./v8-heap.js";

export { App, type AppDeps, StartupError } from "./app.js";
export { exitWhenFlushed } from "./exit.js";
export { formatUsage, parseFlags } from "./flags.js";
export { createJsonLogger } from "./logger.js";
export { decodeServerOptions, SERVER_FLAGS, type ServerOptions } from "./server-flags.js";
export { defaultVersionFile, resolveVersion } from "./version.js";
