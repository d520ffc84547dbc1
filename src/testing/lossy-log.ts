/**
 * A command log that loses one acknowledged write, as a JetStream quorum that lost state did once
 * in the replication tests (docs/replication.md, "A write the log lost"): the first group whose
 * bytes contain LOSE_MARK is not published; another server's empty group is, and its position is
 * what the writer is told its group got. Every other call goes to the log it wraps.
 * src/testing/lossy-writer-worker.ts runs a replicated writer thread on it.
 */
import { encodeGroup, type ReplicatedLog } from "../store/replicated-log.js";

export const LOSE_MARK = "lose this write once";

const mark = new TextEncoder().encode(LOSE_MARK);

function contains(bytes: Uint8Array, part: Uint8Array): boolean {
  outer: for (let i = 0; i + part.length <= bytes.length; i++) {
    for (let j = 0; j < part.length; j++) if (bytes[i + j] !== part[j]) continue outer;
    return true;
  }
  return false;
}

export function lossyLog(real: ReplicatedLog): ReplicatedLog {
  let lost = false;
  return {
    publish(id, group) {
      if (!lost && contains(group, mark)) {
        lost = true;
        return real.publish(
          "thief-1",
          encodeGroup({ origin: "thief", n: 1, rows: [], configs: [], sources: [] }),
        );
      }
      return real.publish(id, group);
    },
    follow: (after, deliver, onState) => real.follow(after, deliver, onState),
    firstPosition: () => real.firstPosition(),
    publishSnapshot: (position, snapshot) => real.publishSnapshot(position, snapshot),
    latestSnapshot: () => real.latestSnapshot(),
    close: () => real.close(),
  };
}
