import type { CheckOutcome, PerfDatum } from "../../model/check-result.js";
import type { Checker } from "../../model/checker.js";
import type { SnmpAuthProto, SnmpPrivProto, SnmpProbe } from "../../model/config.js";
import type { ExitStatus } from "../../model/state.js";
import { parseRange } from "../../nagios/range.js";
import { abortOutcome, oneLine, outcome, parseHostPort } from "../format.js";
import { snmp } from "./net-snmp-extensions.js";
import { SNMP_AUTH_SUPPORT, SNMP_PRIV_SUPPORT, snmpProbeProblems } from "./snmp-support.js";

const PREFIX = "SNMP";
const T = snmp.ObjectType;

/** A varbind's value as the check sees it. */
export type Reading =
  | { readonly kind: "number"; readonly value: number; readonly counter: boolean; readonly text: string }
  | { readonly kind: "string"; readonly text: string };

function printable(s: string): string {
  const clean = oneLine(s)
    .replaceAll(/[\u0000-\u001f\u007f]/g, "?")
    .replaceAll("|", "/");
  return clean.length > 200 ? `${clean.slice(0, 197)}...` : clean;
}

function bufferText(b: Buffer): string {
  const text = b.toString("utf8");
  // Binary octet strings (MAC addresses, bitmaps) read better as hex, as snmpget shows them.
  return /[\u0000-\u0008\u000e-\u001f\ufffd]/.test(text)
    ? b.toString("hex").replace(/(..)(?!$)/g, "$1:")
    : text;
}

/** Reads a varbind value by its SNMP type: counters, gauges and integers are numbers, the rest text. */
export function reading(type: number, value: unknown): Reading {
  switch (type) {
    case T.Counter:
    case T.Counter32:
      return { kind: "number", value: Number(value), counter: true, text: String(value) };
    case T.Counter64: {
      // net-snmp hands Counter64 over as big-endian bytes; values past 2^53 lose precision.
      const n =
        Buffer.isBuffer(value) && value.length > 0
          ? BigInt(`0x${value.toString("hex")}`)
          : BigInt(Number(value));
      return { kind: "number", value: Number(n), counter: true, text: n.toString() };
    }
    case T.Integer:
    case T.Gauge:
    case T.TimeTicks:
      return { kind: "number", value: Number(value), counter: false, text: String(value) };
    case T.OctetString:
    case T.Opaque:
      return { kind: "string", text: Buffer.isBuffer(value) ? bufferText(value) : String(value) };
    default:
      return { kind: "string", text: Buffer.isBuffer(value) ? bufferText(value) : String(value) };
  }
}

const NUMERIC = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** Turns a reading into the outcome, by `expect` or by the `warn`/`crit` ranges. */
export function judge(p: SnmpProbe, r: Reading): CheckOutcome {
  const label = printable(p.label !== "" ? p.label : p.oid).replaceAll(/['=]/g, "_");
  if (p.expect !== "") {
    const got = r.text;
    return got === p.expect
      ? outcome(PREFIX, 0, `${label} = "${printable(got)}"`)
      : outcome(PREFIX, 2, `${label} = "${printable(got)}", expected "${printable(p.expect)}"`);
  }
  let value: number;
  let counter = false;
  if (r.kind === "number") {
    value = r.value;
    counter = r.counter;
  } else if (NUMERIC.test(r.text)) {
    // Some agents publish numbers as strings (UCD laLoad "0.15"); thresholds still apply.
    value = Number(r.text);
  } else {
    if (p.warn !== "" || p.crit !== "") {
      return outcome(PREFIX, 3, `${label} = "${printable(r.text)}" is not a number; warn/crit need one`);
    }
    return outcome(PREFIX, 0, `${label} = "${printable(r.text)}"`);
  }
  let status: ExitStatus = 0;
  if (p.crit !== "" && parseRange(p.crit).alerts(value)) status = 2;
  else if (p.warn !== "" && parseRange(p.warn).alerts(value)) status = 1;
  const uom = counter ? "c" : p.uom;
  const datum: PerfDatum = { label, value, uom, warn: p.warn, crit: p.crit };
  const shown = r.kind === "number" ? r.text : String(value);
  return outcome(PREFIX, status, `${label} = ${shown}${uom === "c" ? "" : uom}`, [datum]);
}

function describeError(e: Error): string {
  const name = e.name === "RequestTimedOutError" || /timed out/i.test(e.message) ? "timeout" : "";
  return name === "timeout" ? "No response" : oneLine(e.message);
}

/**
 * The `snmp` check: one GET of `oid` over SNMP v2c (`community`) or v3 USM (`user` with any of the
 * schema's auth and priv protocols). Numbers are judged by the `warn`/`crit` Nagios ranges, strings
 * by `expect`. A counter's perfdata unit is `c`, a gauge's is `uom`; the perfdata label is `label`
 * or the OID. No answer is CRITICAL; a bad probe, an agent error or a missing OID is UNKNOWN.
 */
export function createSnmpChecker(): Checker<SnmpProbe> {
  return {
    type: "snmp",
    run(target, signal) {
      const p = target.probe;
      const started = performance.now();
      let problems: string[];
      try {
        problems = snmpProbeProblems(p);
      } catch {
        problems = ["the probe is malformed"];
      }
      if (problems.length > 0)
        return Promise.resolve(outcome(PREFIX, 3, `invalid snmp check: ${printable(problems.join("; "))}`));
      const hp = parseHostPort(p.address, 161);
      if (hp === undefined)
        return Promise.resolve(outcome(PREFIX, 3, `invalid address "${printable(p.address)}"`));
      const where = hp.host.includes(":") ? `[${hp.host}]:${hp.port}` : `${hp.host}:${hp.port}`;
      if (signal.aborted) return Promise.resolve(abortOutcome(PREFIX, signal, where, started));
      const timeoutMs = p.timeoutMs > 0 ? p.timeoutMs : 10_000;
      const options = {
        port: hp.port,
        // Two tries within the check's timeout: UDP loses packets, and a single retry is what
        // check_snmp does by default.
        retries: 1,
        timeout: Math.max(50, Math.floor(timeoutMs / 2)),
        transport: hp.host.includes(":") ? ("udp6" as const) : ("udp4" as const),
      };
      return new Promise<CheckOutcome>((resolve) => {
        let session: ReturnType<typeof snmp.createSession>;
        try {
          if (p.community !== undefined && p.community !== "") {
            session = snmp.createSession(hp.host, p.community, { ...options, version: snmp.Version2c });
          } else {
            const auth = SNMP_AUTH_SUPPORT[p.authProto as SnmpAuthProto].netSnmp;
            const priv = SNMP_PRIV_SUPPORT[p.privProto as SnmpPrivProto].netSnmp;
            const level =
              auth === ""
                ? snmp.SecurityLevel.noAuthNoPriv
                : priv === ""
                  ? snmp.SecurityLevel.authNoPriv
                  : snmp.SecurityLevel.authPriv;
            session = snmp.createV3Session(
              hp.host,
              {
                name: p.user as string,
                level,
                ...(auth === "" ? {} : { authProtocol: auth, authKey: p.authPass }),
                ...(priv === "" ? {} : { privProtocol: priv, privKey: p.privPass }),
              },
              { ...options, version: snmp.Version3 },
            );
          }
        } catch (e) {
          resolve(outcome(PREFIX, 3, `${where}: cannot create session: ${describeError(e as Error)}`));
          return;
        }
        let settled = false;
        const finish = (o: CheckOutcome): void => {
          if (settled) return;
          settled = true;
          signal.removeEventListener("abort", onAbort);
          try {
            session.close();
          } catch {
            // already closed
          }
          resolve(o);
        };
        const onAbort = (): void => finish(abortOutcome(PREFIX, signal, where, started));
        signal.addEventListener("abort", onAbort, { once: true });
        session.on("error", (e) => finish(outcome(PREFIX, 3, `${where}: ${describeError(e)}`)));
        try {
          session.get([p.oid], (error, varbinds) => {
            if (error !== null) {
              const text = describeError(error);
              finish(outcome(PREFIX, text === "No response" ? 2 : 3, `${where}: ${text} for ${p.oid}`));
              return;
            }
            const vb = varbinds[0];
            if (vb === undefined) {
              finish(outcome(PREFIX, 3, `${where}: empty response for ${p.oid}`));
              return;
            }
            if (snmp.isVarbindError(vb)) {
              finish(outcome(PREFIX, 3, `${where}: ${oneLine(snmp.varbindError(vb))}`));
              return;
            }
            try {
              finish(judge(p, reading(vb.type, vb.value)));
            } catch (e) {
              finish(outcome(PREFIX, 3, `${where}: cannot judge the value: ${describeError(e as Error)}`));
            }
          });
        } catch (e) {
          finish(outcome(PREFIX, 3, `${where}: ${describeError(e as Error)}`));
        }
      });
    },
  };
}
