/**
 * The worker that matches one RE2 pattern against one body with re2js, off the main thread: a
 * pattern outside the subset V8 can run takes re2js about a second per MiB, which must not stall
 * the scheduler or the API, and must stop when the check's timeout fires (the worker is
 * terminated). Posts `true`, `false`, or `null` for a pattern re2js refuses.
 */
import { parentPort, workerData } from "node:worker_threads";
import { RE2JS } from "re2js";

const { pattern, body } = workerData as { pattern: string; body: string };
let found: boolean | null;
try {
  found = RE2JS.compile(pattern).matcher(body).find();
} catch {
  found = null;
}
parentPort?.postMessage(found);
