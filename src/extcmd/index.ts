/**
 * The external command file: a named pipe that Nagios- and Icinga-style senders (scripts,
 * send_nsca via nsca-ng, event handlers) write `[epoch] COMMAND;args` lines into. Each line
 * becomes the same command the API would submit (Core.submit), consecutive check results one
 * batch, and is audited. See docs/auth.md.
 */

export type { LineResult } from "./line-submitter.js";
export { type ExternalCommandName, type ParsedLine, parseCommandLine } from "./parse.js";
export {
  type CommandFile,
  CommandFileError,
  type CommandFileOptions,
  startCommandFile,
} from "./reader.js";
