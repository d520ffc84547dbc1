import { runProcess } from "../../checks/process/index.js";
import type { MacroObjectState } from "../../macros/index.js";
import { buildArgv, buildShellCommand, CommandLineError, createMacroResolver } from "../../macros/index.js";
import type { Notification, Sender, SendOutcome } from "../sender.js";
import { permanent, retryable } from "../sender.js";

/** Bytes of the command's output kept for the failure message. */
export const COMMAND_OUTPUT_CAP = 4 * 1024;

/** Exit status a command uses to ask for a retry (sendmail's EX_TEMPFAIL). */
export const EXIT_TEMPFAIL = 75;

/** $NOTIFICATIONTYPE$ as Nagios spells the kinds. */
function nagiosType(kind: Notification["kind"]): string {
  switch (kind) {
    case "PROBLEM":
    case "RECOVERY":
      return kind;
    case "STATUS_CHANGE":
      return "PROBLEM";
    case "FLAPPING_START":
      return "FLAPPINGSTART";
    case "FLAPPING_STOP":
      return "FLAPPINGSTOP";
    case "ACKNOWLEDGEMENT":
    case "CUSTOM":
      return kind;
    case "DOWNTIME_START":
      return "DOWNTIMESTART";
    case "DOWNTIME_END":
      return "DOWNTIMEEND";
    case "DOWNTIME_REMOVED":
      // Nagios' name for a downtime deleted while in effect (Icinga 2 says DOWNTIMEREMOVED).
      return "DOWNTIMECANCELLED";
    default: {
      const never: never = kind;
      return never;
    }
  }
}

/**
 * Runs the contact's `commands` template with the Nagios notification macros (docs/macros.md)
 * through the injection-proof command line and the plugin process runner: no shell unless the
 * template says `shell: true`, and then every value only through a positional parameter; a clean
 * environment; the process group killed when the send is aborted (its timeout); output capped.
 * Exit 0 is delivered, 75 (EX_TEMPFAIL) and a timeout are retryable, anything else is permanent.
 */
export function createCommandSender(o: { now?: () => number } = {}): Sender {
  const now = o.now ?? Date.now;
  return {
    async send(n, contact, config, signal): Promise<SendOutcome> {
      if (contact.type !== "command") return permanent(`command sender given a ${contact.type} contact`);
      const template = config.commands.get(contact.command);
      if (template === undefined) return permanent(`command: no command named "${contact.command}"`);
      const host = config.hosts.get(n.host);
      if (host === undefined) return permanent(`command: host ${n.host} is no longer configured`);
      const service = n.service === undefined ? undefined : host.services.get(n.service);
      if (n.service !== undefined && service === undefined)
        return permanent(`command: service ${n.host}/${n.service} is no longer configured`);
      const objState: MacroObjectState = { state: n.state, stateType: "HARD", output: n.output };
      const resolve = createMacroResolver({
        host,
        ...(service === undefined ? {} : { service }),
        resources: config.resources,
        args: contact.args,
        now: now(),
        ...(service === undefined ? { hostState: objState } : { serviceState: objState }),
        contact,
        notification: {
          type: nagiosType(n.kind),
          number: n.number,
          ...(n.author === undefined ? {} : { author: n.author }),
          ...(n.comment === undefined ? {} : { comment: n.comment }),
        },
      });
      let file: string;
      let args: string[];
      try {
        if (template.shell) {
          const { script, params } = buildShellCommand(template.line, resolve);
          file = "/bin/sh";
          args = ["-c", script, "lookout-notify", ...params];
        } else {
          const argv = buildArgv(template.line, resolve);
          file = argv[0] as string;
          args = argv.slice(1);
        }
      } catch (e) {
        if (e instanceof CommandLineError) return permanent(`command ${contact.command}: ${e.message}`);
        throw e;
      }
      const r = await runProcess({ file, args, outputCap: COMMAND_OUTPUT_CAP }, signal);
      const said = (r.stdout.trim() || r.stderr.trim()).split("\n")[0]?.slice(0, 200) ?? "";
      const tail = said === "" ? "" : `: ${said}`;
      switch (r.end.kind) {
        case "exited":
          if (r.end.code === 0) return { ok: true };
          if (r.end.code === EXIT_TEMPFAIL)
            return retryable(`command ${contact.command}: exit ${r.end.code}${tail}`);
          return permanent(`command ${contact.command}: exit ${r.end.code}${tail}`);
        case "signaled":
          return retryable(`command ${contact.command}: killed by ${r.end.signal}`);
        case "timeout":
        case "aborted":
          return retryable(`command ${contact.command}: timeout`);
        case "spawn-error":
          return permanent(`command ${contact.command}: cannot start (${r.end.message})`);
        default: {
          const never: never = r.end;
          return never;
        }
      }
    },
  };
}
