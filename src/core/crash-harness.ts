/**
 * A small process for the crash test (src/core/crash.test.ts): opens a Core on a data directory and
 * submits numbered batches of results as fast as it can, printing `ok <n>` once batch n is
 * acknowledged (durably enqueued). The test kills it with SIGKILL mid-stream.
 *
 *   node dist/src/core/crash-harness.js <dataDir> [concurrency=4] [first batch number=0]
 */
import type { ExitStatus } from "../model/state.js";
import { Core } from "./core.js";
import { fleetConfig, fleetHost, fleetService } from "./fleet-config.js";
import type { CommandInput } from "./validate.js";

/** The fleet the harness and the test agree on. */
export const CRASH_FLEET = { hosts: 20, servicesPerHost: 10 } as const;
/** Results per batch. */
export const CRASH_BATCH = 50;

/** The output that marks a result as part of batch n. */
export function batchOutput(n: number): string {
  return `batch ${n}`;
}

function batch(n: number): CommandInput[] {
  const total = CRASH_FLEET.hosts * CRASH_FLEET.servicesPerHost;
  const out: CommandInput[] = [];
  for (let k = 0; k < CRASH_BATCH; k++) {
    const i = (n * CRASH_BATCH + k) % total;
    out.push({
      type: "ProcessCheckResult",
      result: {
        host: fleetHost(Math.floor(i / CRASH_FLEET.servicesPerHost)),
        service: fleetService(i % CRASH_FLEET.servicesPerHost),
        exitStatus: ((n + k) % 4) as ExitStatus,
        output: batchOutput(n),
        longOutput: "",
        perfdata: [],
        checkedAt: Date.now(),
        durationMs: 0,
        source: "passive",
      },
    });
  }
  return out;
}

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (dataDir === undefined) throw new Error("usage: crash-harness <dataDir> [concurrency]");
  const concurrency = Number(process.argv[3] ?? 4);
  const core = await Core.open({
    dataDir,
    config: fleetConfig(CRASH_FLEET),
    // Snapshot often, so kills land before, during and after snapshots.
    writer: { snapshotEveryEvents: 2_000 },
  });
  process.stdout.write("ready\n");
  let next = Number(process.argv[4] ?? 0);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const n = next++;
        await core.submit(batch(n));
        process.stdout.write(`ok ${n}\n`);
      }
    }),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
