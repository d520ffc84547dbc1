/**
 * Subcommands of the `lookout` binary that talk to a running server (`lookout config …`, `lookout status`): Go-style
 * flags, the server's URL and an identity's token from flags or the environment, the generated
 * Connect clients, and output for a terminal. main.ts imports them when used.
 */

export { type ConfigCliIo, runConfigCli } from "./config-cli.js";
export { SERVER_CLIENT_FLAGS, type ServerTarget, serverClient, serverTarget } from "./server-client.js";
export { runStatusCli, STATUS_FLAGS } from "./status-command.js";
