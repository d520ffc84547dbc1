import type { SubmittedCommand } from "../core/validate.js";
import type { Target } from "../model/commands.js";
import type { ObjectSwitch } from "../model/object-flags.js";

/**
 * The Nagios/Icinga commands that turn a run-time switch of one host or service off or on
 * (docs/auth.md, "The external command file"): each a SetObjectFlags of one switch.
 */
const SWITCH_COMMANDS = {
  ENABLE_SVC_CHECK: ["activeChecks", true, true],
  DISABLE_SVC_CHECK: ["activeChecks", true, false],
  ENABLE_HOST_CHECK: ["activeChecks", false, true],
  DISABLE_HOST_CHECK: ["activeChecks", false, false],
  ENABLE_PASSIVE_SVC_CHECKS: ["passiveChecks", true, true],
  DISABLE_PASSIVE_SVC_CHECKS: ["passiveChecks", true, false],
  ENABLE_PASSIVE_HOST_CHECKS: ["passiveChecks", false, true],
  DISABLE_PASSIVE_HOST_CHECKS: ["passiveChecks", false, false],
  ENABLE_SVC_NOTIFICATIONS: ["notifications", true, true],
  DISABLE_SVC_NOTIFICATIONS: ["notifications", true, false],
  ENABLE_HOST_NOTIFICATIONS: ["notifications", false, true],
  DISABLE_HOST_NOTIFICATIONS: ["notifications", false, false],
  ENABLE_SVC_FLAP_DETECTION: ["flapDetection", true, true],
  DISABLE_SVC_FLAP_DETECTION: ["flapDetection", true, false],
  ENABLE_HOST_FLAP_DETECTION: ["flapDetection", false, true],
  DISABLE_HOST_FLAP_DETECTION: ["flapDetection", false, false],
} as const satisfies Record<string, readonly [ObjectSwitch, service: boolean, on: boolean]>;

/** The names of the switch commands. */
export type SwitchCommandName = keyof typeof SWITCH_COMMANDS;

/** Whether a command name is one of the switch commands. */
export function isSwitchCommand(name: string): name is SwitchCommandName {
  return Object.hasOwn(SWITCH_COMMANDS, name);
}

/** The argument count of each switch command: host_name, and service_description for a service. */
export const SWITCH_ARITY = Object.fromEntries(
  Object.entries(SWITCH_COMMANDS).map(([name, [, service]]) => [name, service ? 2 : 1]),
) as Record<SwitchCommandName, number>;

/** The author a switch command records: the command file says none. */
export const COMMAND_FILE_AUTHOR = "command-file";

/** The SetObjectFlags a switch command stands for, for the object its line names. */
export function switchCommand(
  name: SwitchCommandName,
  target: Target,
): { command: SubmittedCommand; shown: Record<string, unknown> } {
  const [s, , on] = SWITCH_COMMANDS[name];
  return {
    command: { type: "SetObjectFlags", target, flags: { [s]: on }, author: COMMAND_FILE_AUTHOR },
    shown: {
      Type: "SetObjectFlags",
      Target:
        "object" in target
          ? {
              Object: {
                Host: target.object.host,
                ...(target.object.service === undefined ? {} : { Service: target.object.service }),
              },
            }
          : { Selector: target.selector },
      [s.charAt(0).toUpperCase() + s.slice(1)]: on,
      Author: COMMAND_FILE_AUTHOR,
    },
  };
}

/** Whether a switch command names a service (takes host_name;service_description). */
export function switchTakesService(name: SwitchCommandName): boolean {
  return SWITCH_COMMANDS[name][1];
}
