/**
 * Entry module of the store's writer thread on a replicated server (docs/replication.md): the
 * engine and the decoder of passive results as in src/core/writer-worker.ts, and the command log
 * on NATS JetStream. Core starts it through Store.open when replication is on (src/app/app.ts).
 */
import { encodedResults } from "../core/encoded-results.js";
import { engineMachines } from "../core/engine-machines.js";
import { runWriterThread } from "../store/writer-thread.js";
import { type CommandStreamOptions, createCommandStream } from "./command-stream.js";

runWriterThread(engineMachines, encodedResults, (options) =>
  createCommandStream(options as CommandStreamOptions),
);
