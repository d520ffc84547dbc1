/**
 * A replicated writer thread on a command log that loses one acknowledged write
 * (src/testing/lossy-log.ts), over the real command stream on NATS JetStream.
 */
import { encodedResults } from "../core/encoded-results.js";
import { engineMachines } from "../core/engine-machines.js";
import { runWriterThread } from "../store/writer-thread.js";
import { type CommandStreamOptions, createCommandStream } from "../zones/command-stream.js";
import { lossyLog } from "./lossy-log.js";

runWriterThread(engineMachines, encodedResults, async (options) =>
  lossyLog(await createCommandStream(options as CommandStreamOptions)),
);
