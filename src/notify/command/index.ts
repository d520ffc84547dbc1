/**
 * The `command` contact: a `commands` template run with the Nagios notification macros
 * ($NOTIFICATIONTYPE$, $SERVICESTATE$, $CONTACTEMAIL$ …) through the injection-proof command line.
 */
export { COMMAND_OUTPUT_CAP, createCommandSender, EXIT_TEMPFAIL } from "./command-sender.js";
