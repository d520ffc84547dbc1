import assert from "node:assert/strict";
import { toJson } from "@bufbuild/protobuf";
import { type Client, createClient, createRouterTransport } from "@connectrpc/connect";
import { ListStatusResponseSchema, QueryService } from "../../api/gen/svc/v1/query_service_pb.js";
import { createQueryService } from "../../api/query-service.js";
import { loadConfigFile } from "../../app/config-file.js";
import type { CoreView } from "../../core/index.js";
import { createObjectIndex } from "../../store/object-index.js";
import { createProjection } from "../../store/projection.js";
import { replayProjection } from "../../store/replay.js";
import { post } from "./harness.js";

/** Every ListStatus page, as parsed Connect JSON statuses. */
async function allStatuses(
  page: (token: string) => Promise<{ statuses?: unknown[]; nextPageToken?: string }>,
) {
  const items: unknown[] = [];
  for (let token = "", pages = 0; ; pages++) {
    assert.ok(pages < 10_000, "paging terminates");
    const body = await page(token);
    items.push(...(body.statuses ?? []));
    token = body.nextPageToken ?? "";
    if (token === "") return items;
  }
}

/**
 * The reference a restarted server is compared with: a fresh replay of the log in `dataDir` under
 * the config in `configFile`, served in-process by the same QueryService code.
 */
export async function replayReference(
  configFile: string,
  dataDir: string,
): Promise<Client<typeof QueryService>> {
  const loaded = await loadConfigFile(configFile, "");
  assert.ok(loaded.ok);
  const view: CoreView = {
    index: createObjectIndex(loaded.config),
    projection: createProjection(replayProjection(dataDir)),
  };
  return createClient(
    QueryService,
    createRouterTransport((router) =>
      router.service(QueryService, createQueryService({ version: "dev", core: { view } })),
    ),
  );
}

/**
 * Asserts that the server at `url` (just restarted on `dataDir`, nothing ingested since) serves
 * exactly the ListStatus a fresh replay of the log gives, served by the same QueryService code
 * in-process; returns the statuses served.
 */
export async function assertServesReplay(
  url: string,
  configFile: string,
  dataDir: string,
): Promise<unknown[]> {
  const reference = await replayReference(configFile, dataDir);
  const served = await allStatuses(async (pageToken) => {
    const r = await post(
      url,
      "/svc.v1.QueryService/ListStatus",
      "application/json",
      JSON.stringify({ pageSize: 500, pageToken }),
    );
    assert.equal(r.status, 200, r.body);
    return JSON.parse(r.body) as { statuses?: unknown[]; nextPageToken?: string };
  });
  const replayed = await allStatuses(
    async (pageToken) =>
      toJson(ListStatusResponseSchema, await reference.listStatus({ pageSize: 500, pageToken })) as {
        statuses?: unknown[];
        nextPageToken?: string;
      },
  );
  assert.deepEqual(served, replayed, "the served projection equals a replay of the log");
  return served;
}
