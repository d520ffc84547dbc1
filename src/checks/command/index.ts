/**
 * The `command` check type: a named `#Command` template with Nagios macros, expanded per object and
 * run as a plugin, with or without a shell. The macro machinery lives in src/macros/.
 */
export {
  type CommandCheckerOptions,
  type CommandStateSnapshot,
  createCommandChecker,
} from "./command-checker.js";
