/**
 * Nagios-style macro expansion (`$HOSTNAME$`, `$ARG1$`, `$_HOSTxxx$`, `$$` …) and the safe building of
 * command lines from `#Command` templates. Used by the `command` check and by command notifications:
 * a context (host, service, args, resources, an optional state snapshot, contact and notification)
 * gives a resolver; the expanders take any resolver. docs/macros.md lists every macro.
 */
export {
  buildArgv,
  buildShellCommand,
  CommandLineError,
  commandLineProblem,
  type ShellCommand,
  splitWords,
  type Word,
} from "./command-line.js";
export {
  createMacroResolver,
  type MacroContext,
  type MacroNotification,
  type MacroObjectState,
} from "./context.js";
export { expandMacros, type MacroResolver, parseTemplate, type TemplatePart } from "./expand.js";
