import { openEventLogReader } from "../store/index.js";

/**
 * Every active check result in a data dir's event log, as "key@checkedAt", once per time it was
 * logged: applied (CheckResultProcessed), or refused as older than the object's last result
 * (CommandRejected "result checked at … is older …": a result redelivered after a newer one was
 * applied is logged and refused; late results never roll the state back). Zones tests compare it
 * with what workers published.
 */
export function loggedResults(dataDir: string): string[] {
  const reader = openEventLogReader(dataDir);
  try {
    const out: string[] = [];
    for (let after = 0; ; ) {
      const batch = reader.eventsAfter(after, 1000);
      if (batch.length === 0) return out;
      for (const e of batch) {
        after = e.seq;
        const ev = e.event;
        if (ev.type === "CheckResultProcessed" && ev.result.source === "active") {
          out.push(`${ev.key}@${ev.result.checkedAt}`);
        } else if (ev.type === "CommandRejected" && ev.command === "ProcessCheckResult") {
          const at = /^result checked at (\S+) is older/.exec(ev.reason)?.[1];
          if (at !== undefined && ev.key !== undefined) out.push(`${ev.key}@${Date.parse(at)}`);
        }
      }
    }
  } finally {
    reader.close();
  }
}
