/**
 * Benchmark: the scheduler's own cost, with a checker that answers OK at once (no sockets), on the
 * real clock. Prints the same table as scheduler-tcp; "CPU us/check" is the scheduler's overhead
 * per run (timers, heap, abort signal, metrics, result), the part Lookout controls.
 *
 *   npx tsc -p . && node dist/bench/scheduler-overhead.js [--services 100000] [--intervals 10,5,2,1]
 */
import { loadavg } from "node:os";
import type { CheckOutcome } from "../src/model/check-result.js";
import type { Checker } from "../src/model/checker.js";
import { parseArgs, runLevels } from "./scheduler-level.js";

const OK: CheckOutcome = { exitStatus: 0, output: "OK", longOutput: "", perfdata: [] };
const nullChecker: Checker = { type: "tcp", run: () => Promise.resolve(OK) };

const o = parseArgs(process.argv.slice(2), { intervals: [10, 5, 2, 1] });
console.log(
  `scheduler-overhead: ${o.services} services with an instant checker, concurrency ${o.concurrency}, ${o.rounds} intervals per level; node ${process.version}; load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
await runLevels(o, nullChecker, () => ({ type: "tcp", address: "127.0.0.1:9" }));
console.log(
  `load at end: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
