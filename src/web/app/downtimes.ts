import type { ActionTarget } from "./components/action-dialog.js";
import { createStore } from "./store.js";

/**
 * Downtimes scheduled from this browser, with the ids ScheduleDowntime returned. The API lists no
 * downtimes (no ListDowntimes RPC; history entries carry no id), so these, and ids typed in by
 * hand, are the ones DeleteDowntime can be offered for.
 */
export interface KnownDowntime {
  readonly id: string;
  readonly target: ActionTarget;
  readonly start: number;
  readonly end: number;
  readonly comment: string;
}

const KEY = "lookout.downtimes";

function load(): KnownDowntime[] {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(KEY) ?? "[]");
    return Array.isArray(v) ? (v as KnownDowntime[]) : [];
  } catch {
    return [];
  }
}

export const knownDowntimes = createStore<readonly KnownDowntime[]>(load());
knownDowntimes.subscribe((v) => localStorage.setItem(KEY, JSON.stringify(v)));

export function rememberDowntime(d: KnownDowntime): void {
  const now = Date.now();
  knownDowntimes.set([...knownDowntimes.get().filter((x) => x.end > now), d]);
}

export function forgetDowntime(id: string): void {
  knownDowntimes.set(knownDowntimes.get().filter((x) => x.id !== id));
}
