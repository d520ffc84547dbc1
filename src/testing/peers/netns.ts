import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A network namespace joined to this one by a veth pair on a /29 of 198.18.0.0/15 (the range RFC
 * 2544 reserves for benchmarks, so it collides with no real network). `reachable` is the
 * namespace's own address and answers pings; `silent` is on the same link but assigned to nobody,
 * so nothing ever answers (ARP goes unanswered). Packets never leave the two namespaces.
 */
export interface NetnsPeer {
  readonly name: string;
  readonly reachable: string;
  readonly silent: string;
  stop(): Promise<void>;
}

/**
 * Creates the namespace with `ip netns` (needs root, or CAP_NET_ADMIN). Returns `{ unavailable }`, with
 * the reason, when that is not possible here, so a test can say why it skips.
 */
export async function startNetns(): Promise<NetnsPeer | { unavailable: string }> {
  const id = process.pid;
  const name = `lookout-t${id}`;
  const hostSide = `lkt${id}h`;
  const nsSide = `lkt${id}n`;
  let octet: number;
  await removeStale();
  try {
    const { stdout } = await run("ip", ["-o", "-4", "addr", "show"]);
    octet = (id % 250) + 1;
    while (stdout.includes(`198.18.${octet}.`)) octet = (octet % 250) + 1;
    await run("ip", ["netns", "add", name]);
  } catch (err) {
    return { unavailable: `cannot create a network namespace: ${(err as Error).message.split("\n")[0]}` };
  }
  const stop = (): Promise<void> => removeNetns(id);
  const net = `198.18.${octet}`;
  try {
    await run("ip", ["link", "add", hostSide, "type", "veth", "peer", "name", nsSide, "netns", name]);
    await run("ip", ["addr", "add", `${net}.1/29`, "dev", hostSide]);
    await run("ip", ["link", "set", hostSide, "up"]);
    await run("ip", ["-n", name, "addr", "add", `${net}.2/29`, "dev", nsSide]);
    await run("ip", ["-n", name, "link", "set", nsSide, "up"]);
    await run("ip", ["-n", name, "link", "set", "lo", "up"]);
  } catch (err) {
    await stop();
    return { unavailable: `cannot set up a veth pair: ${(err as Error).message.split("\n")[0]}` };
  }
  return { name, reachable: `${net}.2`, silent: `${net}.3`, stop };
}

/**
 * Deletes namespace `lookout-t<id>` and its veth pair. Concurrent `ip netns` calls from parallel
 * test processes can race on /run/netns, so each step is retried until it is gone.
 */
async function removeNetns(id: number): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    // Deleting the namespace deletes its end of the veth pair, and with it the host end.
    await run("ip", ["netns", "del", `lookout-t${id}`]).catch(() => {});
    await run("ip", ["link", "del", `lkt${id}h`]).catch(() => {});
    const { stdout } = await run("ip", ["netns", "list"]).catch(() => ({ stdout: "" }));
    if (!stdout.split("\n").some((l) => l.split(" ")[0] === `lookout-t${id}`)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Removes namespaces left by test processes that died before their cleanup ran. */
async function removeStale(): Promise<void> {
  const { stdout } = await run("ip", ["netns", "list"]).catch(() => ({ stdout: "" }));
  for (const line of stdout.split("\n")) {
    const m = /^lookout-t(\d+)\b/.exec(line);
    if (m === null) continue;
    const id = Number(m[1]);
    if (id !== process.pid && !alive(id)) await removeNetns(id);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
