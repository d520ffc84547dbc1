/**
 * Crash recovery of the real `lookout` binary (dist/src/main.js with -config and -data-dir): ingest
 * over the API, kill the process with SIGKILL (or stop it with SIGTERM) while requests are in
 * flight, restart it on the same data directory, and check that every batch that was answered OK is
 * in the log, and that the restarted server answers ListStatus and ListHistory exactly as a fresh
 * replay of the log (src/store/replay.ts) served by the same QueryService would.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { toJson } from "@bufbuild/protobuf";
import { fleetDocument, fleetHost, fleetService } from "../core/fleet-config.js";
import { openEventLogReader } from "../store/event-log.js";
import { replayReference } from "../testing/faults/replay-compare.js";
import { type ServerProcess, startServer } from "../testing/server-process.js";
import { connectJson, type JsonBody } from "./core-test-server.js";
import { ListHistoryResponseSchema, ListStatusResponseSchema } from "./gen/svc/v1/query_service_pb.js";

const HOSTS = 20;
const SERVICES = 10;
const BATCH = 500;
const dir = mkdtempSync(join(tmpdir(), "lookout-crash-"));
const dataDir = join(dir, "data");
const configFile = join(dir, "fleet.cue");
after(() => rmSync(dir, { recursive: true, force: true }));

// A passive fleet (no timer fires during the test), with labels so that selectors have work.
writeFileSync(configFile, fleetDocument({ hosts: HOSTS, servicesPerHost: SERVICES }));

const start = (): Promise<ServerProcess> => startServer(["-config", configFile, "-data-dir", dataDir]);

function batch(n: number): unknown {
  const results = [];
  for (let k = 0; k < BATCH; k++) {
    const i = (n * BATCH + k) % (HOSTS * (SERVICES + 1));
    const service = i % (SERVICES + 1);
    results.push({
      host: fleetHost(Math.floor(i / (SERVICES + 1))),
      // Every eleventh result is for the host itself.
      ...(service === SERVICES ? {} : { service: fleetService(service) }),
      exitStatus: (n + k) % 4,
      output: `batch ${n} | n=${n};1;2`,
    });
  }
  return { results };
}

/**
 * Ingests numbered batches over Connect JSON, sixteen in flight, until `acks` were answered OK; then
 * ends the server with `how` while the other requests are still in flight. Returns the batches
 * answered OK.
 */
async function ingestAndEnd(first: number, acks: number, how: "SIGKILL" | "SIGTERM"): Promise<Set<number>> {
  const srv = await start();
  const acked = new Set<number>();
  let next = first;
  let ended: Promise<unknown> | undefined;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (ended === undefined) {
        const n = next++;
        try {
          const r = await connectJson(srv.url, "/svc.v1.CommandService/ProcessCheckResults", batch(n));
          if (r.status !== 200) {
            // A graceful stop may refuse what arrives after it began; that is not an OK.
            if (ended !== undefined) return;
            throw new Error(JSON.stringify(r.body));
          }
          acked.add(n);
        } catch (e) {
          if (ended !== undefined) return;
          throw e;
        }
        if (acked.size >= acks && ended === undefined) ended = how === "SIGKILL" ? srv.kill() : srv.stop();
      }
    }),
  );
  const code = await ended;
  if (how === "SIGTERM") assert.equal(code, 0, "SIGTERM is a clean shutdown");
  return acked;
}

/** Every page of a paged RPC, over Connect JSON, as parsed JSON. */
async function allPages(call: (token: string) => Promise<JsonBody>, field: string): Promise<unknown[]> {
  const items: unknown[] = [];
  for (let token = "", pages = 0; ; pages++) {
    assert.ok(pages < 1000, "paging terminates");
    const body = await call(token);
    items.push(...((body[field] as unknown[] | undefined) ?? []));
    token = (body.nextPageToken as string | undefined) ?? "";
    if (token === "") return items;
  }
}

/** The batches whose results are in the event log. */
function loggedBatches(): Set<number> {
  const seen = new Set<number>();
  const reader = openEventLogReader(dataDir);
  try {
    for (let afterSeq = 0; ; ) {
      const events = reader.eventsAfter(afterSeq, 5000);
      if (events.length === 0) break;
      for (const e of events) {
        if (e.event.type === "CheckResultProcessed")
          seen.add(Number(/^batch (\d+)/.exec(e.event.result.output)?.[1]));
      }
      afterSeq = (events[events.length - 1] as { seq: number }).seq;
    }
  } finally {
    reader.close();
  }
  return seen;
}

describe("crash recovery of the real server", () => {
  it("applies every batch answered OK, and serves exactly what a fresh replay of the log gives", async () => {
    const acked = new Set<number>();
    // Killed before any snapshot; stopped cleanly mid-ingestion (the final snapshot); killed after
    // recovering from that snapshot; killed again right after recovering from the log tail.
    for (const [round, acks, how] of [
      [0, 15, "SIGKILL"],
      [1, 40, "SIGTERM"],
      [2, 60, "SIGKILL"],
      [3, 30, "SIGKILL"],
    ] as const) {
      for (const n of await ingestAndEnd(round * 1_000_000, acks, how)) acked.add(n);
    }
    assert.ok(acked.size >= 145);

    const srv = await start();
    try {
      const logged = loggedBatches();
      const missing = [...acked].filter((n) => !logged.has(n));
      assert.deepEqual(missing, [], "every batch answered OK was applied");

      // The reference: a fresh replay of the log, served by the same QueryService code in-process.
      const reference = await replayReference(configFile, dataDir);
      const over = (path: string, req: object): Promise<JsonBody> =>
        connectJson(srv.url, path, req).then((r) => {
          assert.equal(r.status, 200, JSON.stringify(r.body));
          return r.body;
        });

      const cases: { name: string; path: string; field: string; req: object }[] = [
        { name: "ListStatus, whole fleet", path: "ListStatus", field: "statuses", req: { pageSize: 37 } },
        { name: "ListStatus, one host", path: "ListStatus", field: "statuses", req: { host: fleetHost(3) } },
        {
          name: "ListStatus, selector",
          path: "ListStatus",
          field: "statuses",
          req: { selector: "env=dev", pageSize: 50 },
        },
        { name: "ListHistory, global feed", path: "ListHistory", field: "entries", req: { pageSize: 1000 } },
        {
          name: "ListHistory, one service",
          path: "ListHistory",
          field: "entries",
          req: { host: fleetHost(7), service: fleetService(4) },
        },
      ];
      for (const c of cases) {
        const served = await allPages(
          (pageToken) => over(`/svc.v1.QueryService/${c.path}`, { ...c.req, pageToken }),
          c.field,
        );
        const replayed = await allPages(async (pageToken) => {
          const req = { ...c.req, pageToken };
          return c.path === "ListStatus"
            ? toJson(ListStatusResponseSchema, await reference.listStatus(req))
            : toJson(ListHistoryResponseSchema, await reference.listHistory(req));
        }, c.field);
        assert.ok(served.length > 0, c.name);
        assert.deepEqual(served, replayed, c.name);
      }
    } finally {
      assert.equal(await srv.stop(), 0);
    }
  });
});
