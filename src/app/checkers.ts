import { type CommandCheckerOptions, createCommandChecker } from "../checks/command/index.js";
import { createDnsChecker } from "../checks/dns/index.js";
import { createHttpChecker } from "../checks/http/index.js";
import { createIcmpChecker } from "../checks/icmp/index.js";
import { createLegacyChecker } from "../checks/legacy/index.js";
import { createSnmpChecker } from "../checks/snmp/index.js";
import { createTcpChecker } from "../checks/tcp/index.js";
import { createTlsChecker } from "../checks/tls/index.js";
import { createWasmChecker } from "../checks/wasm/index.js";
import type { Checker } from "../model/checker.js";
import type { CheckType } from "../model/config.js";

export interface CheckerSet {
  readonly checkers: ReadonlyMap<CheckType, Checker>;
  /** Releases what checkers hold between runs (the wasm worker pool). */
  close(): Promise<void>;
}

/**
 * The check types Lookout runs itself, one checker each. `passive` has none by design: its
 * results arrive through the API. This is the only place that knows the implementations.
 */
export function createCheckers(o: CommandCheckerOptions = {}): CheckerSet {
  const wasm = createWasmChecker();
  const list = [
    createTcpChecker(),
    createHttpChecker(),
    createDnsChecker(),
    createIcmpChecker(),
    createTlsChecker(),
    createLegacyChecker(),
    createCommandChecker(o),
    createSnmpChecker(),
    wasm,
  ] as Checker[];
  return {
    checkers: new Map(list.map((c) => [c.type, c])),
    close: async () => {
      await wasm.close();
    },
  };
}
