import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { tokenSha256 } from "../auth/index.js";
import { passiveFleet, type Replica, waitFor, withReplicaSet } from "../testing/replicas.js";

/**
 * Config history with a replicated command log (docs/config-history.md, "Replicated servers"): the
 * ApplyConfig row carries who applied the config and what it changed, and every server records the
 * version when it materialises the group, so a follower lists what the leader lists.
 */

const ADMIN = "replicated-history-admin";
const SECRET = "replicated-history-session-secret-0123456789";
const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

async function versions(
  r: Replica,
): Promise<{ version: string; appliedBy: string; sha256: string; summary: string }[]> {
  const res = await fetch(`${r.url}/svc.v1.AdminService/ListConfigVersions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
    body: "{}",
  });
  const body = (await res.json()) as { versions?: never[] };
  return body.versions ?? [];
}

async function leads(r: Replica): Promise<boolean> {
  try {
    const res = await fetch(`${r.url}/zones/workers`, { headers: { authorization: `Bearer ${ADMIN}` } });
    return res.ok && ((await res.json()) as { leading?: unknown }).leading === true;
  } catch {
    return false;
  }
}

test("every server records the log's config versions, with who applied each", async () => {
  const dir = await mkdtemp(join(tmpdir(), "lookout-replicated-history-"));
  const auth = join(dir, "auth.cue");
  await writeFile(auth, `identities: root: {role: "admin", token_sha256: "${tokenSha256(ADMIN)}"}\n`);
  const first = passiveFleet(1, 1);
  const second = passiveFleet(2, 1);
  try {
    await withReplicaSet(
      {
        config: first,
        natsNodes: 1,
        natsReplicas: 1,
        extraArgs: ["-auth-config", auth, "-session-secret", SECRET],
      },
      async (set) => {
        const servers = await set.addMany(2);
        // set.leader() asks /zones/workers without credentials, which -auth-config refuses.
        let leader: Replica | undefined;
        await waitFor(
          "a leader",
          async () => {
            for (const r of servers) if (await leads(r)) leader = r;
            return leader !== undefined;
          },
          30_000,
        );
        const follower = servers.find((r) => r !== leader) as Replica;
        // The leader publishes its file's config on taking the lease: version 1 everywhere.
        await waitFor(
          "the startup version on both servers",
          async () =>
            (await versions(leader as Replica)).length === 1 && (await versions(follower)).length === 1,
          30_000,
        );
        // Applied on the follower: it goes through the log, and both record it.
        const res = await fetch(`${follower.url}/svc.v1.AdminService/ApplyConfig`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
          body: JSON.stringify({ cue: second }),
        });
        assert.equal(res.status, 200, await res.text());
        await waitFor(
          "the applied version on both servers",
          async () =>
            (await versions(leader as Replica)).length === 2 && (await versions(follower)).length === 2,
          30_000,
        );
        const onLeader = await versions(leader as Replica);
        assert.deepEqual(
          onLeader.map((v) => [v.version, v.appliedBy, v.sha256, v.summary]),
          [
            ["2", "root", sha(second), "+2 ~0 -0 objects"],
            ["1", "startup", sha(first), "startup: 2 objects"],
          ],
        );
        assert.deepEqual(await versions(follower), onLeader);
      },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
