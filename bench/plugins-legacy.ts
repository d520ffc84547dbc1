/**
 * `legacy` check throughput: Debian's check_dummy 0 run through the full legacy path (spawn in its
 * own process group, clean env, output capture, plugin-output parsing) with N runs in flight.
 * Usage: node dist/bench/plugins-legacy.js [seconds-per-step]
 */
import { createLegacyChecker } from "../src/checks/legacy/index.js";
import type { LegacyProbe } from "../src/model/config.js";
import { checkTarget } from "../src/testing/check-contract.js";
import { closedLoop, row } from "./plugins-common.js";

const seconds = Number(process.argv[2] ?? 3);
const checker = createLegacyChecker();
const target = checkTarget<LegacyProbe>({
  type: "legacy",
  path: "/usr/lib/nagios/plugins/check_dummy",
  args: ["0", "bench"],
});
const once = async (): Promise<boolean> =>
  (await checker.run(target, AbortSignal.timeout(10_000))).exitStatus === 0;

console.log(`legacy check_dummy 0, ${seconds}s per step (cpu: 100% = one core)`);
for (const c of [1, 4, 16, 64]) console.log(row(`concurrency ${c}`, await closedLoop(c, seconds, once)));
