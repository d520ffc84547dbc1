/**
 * The worker side of loadConfigInWorker (load-in-worker.ts): runs the one loader on the document it
 * was started with and sends the result back. A valid Config goes in batches of hosts, each sent
 * only after the main thread asked for it, so no batch waits in the main thread's queue and
 * deserializing one never holds the event loop for long.
 */
import { once } from "node:events";
import { parentPort, workerData } from "node:worker_threads";
import type { HostConfig } from "../model/config.js";
import type { ToMain, WorkerInput } from "./load-in-worker.js";
import { loadConfig } from "./loader.js";

async function run(port: NonNullable<typeof parentPort>, input: WorkerInput): Promise<void> {
  const post = (m: ToMain) => port.postMessage(m);
  const r = loadConfig({
    file: input.file,
    text: input.text,
    ...(input.profile === undefined ? {} : { profile: input.profile }),
  });
  if (!r.ok) {
    post({ t: "rejected", diagnostics: r.diagnostics });
    return;
  }
  const { hosts, ...rest } = r.config;
  let batch: HostConfig[] = [];
  let objects = 0;
  for (const host of hosts.values()) {
    batch.push(host);
    objects += 1 + host.services.size;
    if (objects >= input.batchObjects) {
      post({ t: "hosts", hosts: batch });
      batch = [];
      objects = 0;
      await once(port, "message"); // the main thread has taken the batch in
    }
  }
  if (batch.length > 0) {
    post({ t: "hosts", hosts: batch });
    await once(port, "message");
  }
  post({ t: "done", rest });
}

if (parentPort !== null) {
  const port = parentPort;
  run(port, workerData as WorkerInput).then(
    () => port.close(),
    (e: unknown) => {
      port.postMessage({ t: "failed", message: e instanceof Error ? e.message : String(e) } satisfies ToMain);
      port.close();
    },
  );
}
