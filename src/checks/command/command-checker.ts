import { buildArgv, buildShellCommand, CommandLineError } from "../../macros/command-line.js";
import { createMacroResolver, type MacroObjectState } from "../../macros/context.js";
import type { CheckOutcome } from "../../model/check-result.js";
import type { Checker, CheckTarget } from "../../model/checker.js";
import { type Clock, systemClock } from "../../model/clock.js";
import type { CommandProbe } from "../../model/config.js";
import { displayName, runPlugin } from "../process/run-plugin.js";

/** The state macros ($HOSTSTATE$, $SERVICEOUTPUT$ …) for one target, when the caller can give them. */
export interface CommandStateSnapshot {
  readonly host?: MacroObjectState;
  readonly service?: MacroObjectState;
}

export interface CommandCheckerOptions {
  /** For the time macros; defaults to the system clock. */
  readonly clock?: Clock;
  /** Gives the current state of the target for the state macros; they expand to "" without it. */
  readonly snapshot?: (target: CheckTarget<CommandProbe>) => CommandStateSnapshot | undefined;
}

function unknown(output: string): CheckOutcome {
  return { exitStatus: 3, output, longOutput: "", perfdata: [] };
}

/**
 * The `command` check: looks up `command` in the top-level `commands` map, expands its macros
 * (`$ARGn$` from the probe's `args`, `$USERn$` from `resources`, `$_HOSTxxx$`/`$_SERVICExxx$` from
 * vars, the standard macros of docs/macros.md), and runs the result as a Nagios plugin. With
 * `shell: false` the line is split into words before expansion and run without a shell; with
 * `shell: true` it runs under `/bin/sh -c` and every macro value is passed as a positional parameter,
 * so no value can inject a command either way.
 */
export function createCommandChecker(options: CommandCheckerOptions = {}): Checker<CommandProbe> {
  const clock = options.clock ?? systemClock;
  return {
    type: "command",
    async run(target, signal) {
      const { probe, host, service, config } = target;
      const name = probe.command;
      if (typeof name !== "string" || name === "") return unknown("command check: no command name given");
      const template = config.commands.get(name);
      if (template === undefined) return unknown(`command check: no command named "${displayName(name)}"`);
      const args = probe.args ?? [];
      if (!Array.isArray(args) || args.some((a) => typeof a !== "string")) {
        return unknown(`command ${displayName(name)}: args must be a list of strings`);
      }
      const state = options.snapshot?.(target);
      const resolve = createMacroResolver({
        host,
        ...(service === undefined ? {} : { service }),
        resources: config.resources,
        args,
        now: clock.now(),
        ...(state?.host === undefined ? {} : { hostState: state.host }),
        ...(state?.service === undefined ? {} : { serviceState: state.service }),
      });
      try {
        if (template.shell) {
          const { script, params } = buildShellCommand(template.line, resolve);
          return await runPlugin(
            `command ${name}`,
            { file: "/bin/sh", args: ["-c", script, "lookout", ...params], timeoutMs: probe.timeoutMs },
            signal,
          );
        }
        const [file, ...rest] = buildArgv(template.line, resolve);
        return await runPlugin(
          file as string,
          { file: file as string, args: rest, timeoutMs: probe.timeoutMs },
          signal,
        );
      } catch (e) {
        if (e instanceof CommandLineError) return unknown(`command ${displayName(name)}: ${e.message}`);
        return unknown(
          `command ${displayName(name)}: ${displayName(e instanceof Error ? e.message : String(e))}`,
        );
      }
    },
  };
}
