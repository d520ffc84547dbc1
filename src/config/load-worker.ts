/**
 * The worker side of loadConfigInWorker (load-in-worker.ts): runs the one loader on the document it
 * was started with and sends the result back. A valid Config goes in batches of hosts, each sent
 * only after the main thread asked for it, so no batch waits in the main thread's queue and
 * deserializing one never holds the event loop for long. Within a batch, equal parts of hosts are
 * one object (createPartSharer): the main thread then deserializes and interns each once.
 */
import { createHash } from "node:crypto";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { parentPort, workerData } from "node:worker_threads";
import type { HostConfig, ServiceConfig } from "../model/config.js";
import type { ToMain, WorkerInput } from "./load-in-worker.js";
import { loadConfig, lookoutFile } from "./loader.js";
import { scalarKey } from "./scalar-key.js";

async function run(port: NonNullable<typeof parentPort>, input: WorkerInput): Promise<void> {
  const post = (m: ToMain) => port.postMessage(m);
  let text = input.text;
  if (text === undefined) {
    try {
      text = await readFile(input.file, "utf8");
    } catch (e) {
      const message = `cannot read: ${(e as Error).message}`;
      post({ t: "rejected", diagnostics: [{ message, file: input.file, line: 0, column: 0 }] });
      return;
    }
  }
  const r = loadConfig({
    file: input.file,
    text,
    ...(input.profile === undefined ? {} : { profile: input.profile }),
    ...(input.listen === undefined ? {} : { listen: input.listen }),
  });
  if (!r.ok) {
    post({ t: "rejected", diagnostics: r.diagnostics });
    return;
  }
  const { hosts, ...rest } = r.config;
  const share = createPartSharer();
  let batch: HostConfig[] = [];
  let objects = 0;
  for (const host of hosts.values()) {
    batch.push(share(host));
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
  if (!input.digest) {
    post({ t: "done", rest });
    return;
  }
  // The listen address is part of what was loaded: a restart on another port applies the config anew.
  const hash = createHash("sha256").update(text, "utf8");
  if (input.listen !== undefined) hash.update(`\0${lookoutFile(input.listen).text}`);
  post({ t: "done", rest, digest: hash.digest("hex") });
}

/**
 * Copies of hosts whose equal parts — checks, label sets, vars, parent lists — are one object. A
 * structured clone copies an object once however often a message refers to it, and the decoder
 * makes a check per field (55,000 alike in a fleet of 55,000 objects): shared, a batch of 2,000
 * objects carries a handful of them, so the main thread deserializes a handful and its interner
 * (intern.ts) keys a handful, instead of one each. Equal means what the interner means by it: the
 * same fields in the same order with the same values, -0, NaN and undefined told apart.
 */
export function createPartSharer(): (host: HostConfig) => HostConfig {
  const keys = new WeakMap<object, string | undefined>();
  const canonical = new Map<string, unknown>();
  /** An exact key of `v`'s value; undefined for what is never shared (maps, class instances). */
  const keyOf = (v: unknown): string | undefined => {
    const scalar = scalarKey(v);
    if (scalar !== undefined) return scalar;
    if (typeof v !== "object" || v === null) return undefined;
    if (keys.has(v)) return keys.get(v);
    let key: string | undefined;
    if (Array.isArray(v)) {
      key = "[";
      for (let i = 0; i < v.length && key !== undefined; i++) {
        const k = keyOf(v[i]);
        key = k === undefined ? undefined : `${key}${k},`;
      }
    } else {
      const proto: unknown = Object.getPrototypeOf(v);
      key = proto === Object.prototype ? "{" : proto === null ? "N{" : undefined;
      const o = v as Record<string, unknown>;
      for (const name of Object.keys(o)) {
        if (key === undefined) break;
        const k = keyOf(o[name]);
        key = k === undefined ? undefined : `${key}${JSON.stringify(name)}:${k},`;
      }
    }
    keys.set(v, key);
    return key;
  };
  const share = <T>(v: T): T => {
    const key = keyOf(v);
    if (key === undefined || v === null || typeof v !== "object") return v;
    const hit = canonical.get(key);
    if (hit !== undefined) return hit as T;
    canonical.set(key, v);
    return v;
  };
  return (h) => {
    const services = new Map<string, ServiceConfig>();
    for (const [name, s] of h.services) {
      services.set(name, { ...s, vars: share(s.vars), check: share(s.check), labels: share(s.labels) });
    }
    return {
      ...h,
      parents: share(h.parents),
      vars: share(h.vars),
      check: share(h.check),
      labels: share(h.labels),
      services,
    };
  };
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
