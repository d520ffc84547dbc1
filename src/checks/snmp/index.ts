/**
 * The `snmp` check type: one GET over SNMP v2c or v3 USM (every auth and priv protocol the schema
 * lists), judged by Nagios ranges or an exact string, and the support table the config loader uses
 * to refuse what cannot work before it runs.
 */
export { createSnmpChecker } from "./snmp-checker.js";
export {
  MIN_PASSPHRASE,
  type ProtocolSupport,
  SNMP_AUTH_SUPPORT,
  SNMP_PRIV_SUPPORT,
  snmpProbeProblems,
  snmpSupport,
} from "./snmp-support.js";
