import type { SnmpAuthProto, SnmpPrivProto, SnmpProbe } from "../../model/config.js";
import { parseRange } from "../../nagios/range.js";
import { AES192_BLUMENTHAL, AES192_REEDER, desViaTripleDes, snmp } from "./net-snmp-extensions.js";

/** How Lookout speaks one SNMPv3 protocol. */
export interface ProtocolSupport {
  readonly supported: boolean;
  /** net-snmp's name for it, "" for none. */
  readonly netSnmp: string;
  /** One line for docs and diagnostics. */
  readonly note: string;
}

/** Every `auth_proto` the schema allows, and how it is done. All are supported. */
export const SNMP_AUTH_SUPPORT: Readonly<Record<SnmpAuthProto, ProtocolSupport>> = {
  "": { supported: true, netSnmp: "", note: "no authentication (noAuthNoPriv)" },
  MD5: { supported: true, netSnmp: snmp.AuthProtocols.md5 as string, note: "HMAC-MD5-96 (RFC 3414)" },
  SHA: { supported: true, netSnmp: snmp.AuthProtocols.sha as string, note: "HMAC-SHA-96 (RFC 3414)" },
  SHA224: { supported: true, netSnmp: snmp.AuthProtocols.sha224 as string, note: "HMAC-SHA-224 (RFC 7860)" },
  SHA256: { supported: true, netSnmp: snmp.AuthProtocols.sha256 as string, note: "HMAC-SHA-256 (RFC 7860)" },
  SHA384: { supported: true, netSnmp: snmp.AuthProtocols.sha384 as string, note: "HMAC-SHA-384 (RFC 7860)" },
  SHA512: { supported: true, netSnmp: snmp.AuthProtocols.sha512 as string, note: "HMAC-SHA-512 (RFC 7860)" },
};

/**
 * Every `priv_proto` the schema allows, and how it is done. The names follow Net-SNMP's tools:
 * AES192/AES256 extend short keys the Blumenthal way (draft-blumenthal-aes-usm-04), AES192C/AES256C
 * the Reeder way that Cisco uses. All are supported; see net-snmp-extensions.ts for DES and AES192.
 */
export const SNMP_PRIV_SUPPORT: Readonly<Record<SnmpPrivProto, ProtocolSupport>> = {
  "": { supported: true, netSnmp: "", note: "no privacy (authNoPriv)" },
  DES: {
    supported: true,
    netSnmp: snmp.PrivProtocols.des as string,
    note: desViaTripleDes
      ? "CBC-DES (RFC 3414), computed as 3DES-EDE with one key: no --openssl-legacy-provider needed"
      : "CBC-DES (RFC 3414)",
  },
  AES: { supported: true, netSnmp: snmp.PrivProtocols.aes as string, note: "CFB128-AES-128 (RFC 3826)" },
  AES192: { supported: true, netSnmp: AES192_BLUMENTHAL, note: "CFB128-AES-192, Blumenthal key extension" },
  AES256: {
    supported: true,
    netSnmp: snmp.PrivProtocols.aes256b as string,
    note: "CFB128-AES-256, Blumenthal key extension",
  },
  AES192C: { supported: true, netSnmp: AES192_REEDER, note: "CFB128-AES-192, Reeder (Cisco) key extension" },
  AES256C: {
    supported: true,
    netSnmp: snmp.PrivProtocols.aes256r as string,
    note: "CFB128-AES-256, Reeder (Cisco) key extension",
  },
};

/** What the config loader can consult before accepting an snmp check. */
export const snmpSupport = { auth: SNMP_AUTH_SUPPORT, priv: SNMP_PRIV_SUPPORT } as const;

/** Net-SNMP refuses pass phrases shorter than this (RFC 3414 §11.2 recommends at least 8). */
export const MIN_PASSPHRASE = 8;

const NUMERIC_OID = /^\.?[0-2](\.(0|[1-9][0-9]*))+$/;

/**
 * Everything wrong with an snmp probe that the schema cannot express, as messages for config
 * diagnostics; empty when the probe is fine. The snmp check runs the same test and reports a problem
 * as UNKNOWN, so a hand-built probe cannot surprise it either.
 */
export function snmpProbeProblems(p: SnmpProbe): string[] {
  const out: string[] = [];
  const fields = p as unknown as Record<string, unknown>;
  for (const key of [
    "authProto",
    "authPass",
    "privProto",
    "privPass",
    "warn",
    "crit",
    "expect",
    "label",
    "uom",
  ]) {
    if (typeof fields[key] !== "string") out.push(`${key} must be a string`);
  }
  for (const key of ["community", "user"]) {
    if (fields[key] !== undefined && typeof fields[key] !== "string") out.push(`${key} must be a string`);
  }
  if (out.length > 0) return out;
  if (typeof p.address !== "string" || p.address === "") out.push("address is required");
  if (typeof p.oid !== "string" || !NUMERIC_OID.test(p.oid)) {
    out.push(
      `oid "${String(p.oid)}" is not a numeric OID such as 1.3.6.1.2.1.1.3.0 (MIB names are not resolved)`,
    );
  }
  const v2 = typeof p.community === "string" && p.community !== "";
  const v3 = typeof p.user === "string" && p.user !== "";
  if (v2 === v3) out.push("exactly one of community (v2c) and user (v3) must be set");
  const auth = p.authProto ?? "";
  const priv = p.privProto ?? "";
  const authInfo = SNMP_AUTH_SUPPORT[auth as SnmpAuthProto] as ProtocolSupport | undefined;
  const privInfo = SNMP_PRIV_SUPPORT[priv as SnmpPrivProto] as ProtocolSupport | undefined;
  if (authInfo === undefined)
    out.push(`auth_proto "${auth}" is not one of ${Object.keys(SNMP_AUTH_SUPPORT).join(", ")}`);
  else if (!authInfo.supported) out.push(`auth_proto ${auth} is not supported: ${authInfo.note}`);
  if (privInfo === undefined)
    out.push(`priv_proto "${priv}" is not one of ${Object.keys(SNMP_PRIV_SUPPORT).join(", ")}`);
  else if (!privInfo.supported) out.push(`priv_proto ${priv} is not supported: ${privInfo.note}`);
  if (v2 && (auth !== "" || priv !== "" || p.authPass !== "" || p.privPass !== "")) {
    out.push("auth_proto, auth_pass, priv_proto and priv_pass need user (v3), not community");
  }
  if (v3) {
    if (priv !== "" && auth === "")
      out.push("priv_proto needs auth_proto: SNMPv3 has no privacy without authentication");
    if (auth !== "" && (p.authPass ?? "").length < MIN_PASSPHRASE) {
      out.push(`auth_pass must be at least ${MIN_PASSPHRASE} characters with auth_proto ${auth}`);
    }
    if (auth === "" && p.authPass !== "") out.push("auth_pass is set but auth_proto is empty");
    if (priv !== "" && (p.privPass ?? "").length < MIN_PASSPHRASE) {
      out.push(`priv_pass must be at least ${MIN_PASSPHRASE} characters with priv_proto ${priv}`);
    }
    if (priv === "" && p.privPass !== "") out.push("priv_pass is set but priv_proto is empty");
  }
  if (!/^[^\s;='"|0-9]*$/.test(p.uom))
    out.push(`uom "${p.uom}" may not contain digits, blanks, quotes, equals signs, semicolons or bars`);
  if (p.expect !== "" && (p.warn !== "" || p.crit !== ""))
    out.push("expect cannot be combined with warn or crit");
  for (const key of ["warn", "crit"] as const) {
    const text = p[key];
    if (typeof text === "string" && text !== "") {
      try {
        parseRange(text);
      } catch (e) {
        out.push(`${key}: ${(e as Error).message}`);
      }
    }
  }
  return out;
}
