import type { ObjectState, StateType } from "../model/state.js";

/**
 * A status record's summary in 10 bits, read from its encoded bytes (src/store/status-codec.ts)
 * when the projection stores it, and kept beside it (the arena's tag): what `lookout_objects` and
 * its kin count per scrape without decoding a record. Bits 0–3: the svc.v1.State number (1
 * PENDING … 8 UNREACHABLE); bit 4: HARD; 5: flapping; 6: acknowledged; 7: in downtime; 8: a
 * service (else a host).
 */
export type StatusSummary = number;

export const SUMMARY_VALUES = 1 << 9;
const HARD = 1 << 4;
const FLAPPING = 1 << 5;
const ACKNOWLEDGED = 1 << 6;
const IN_DOWNTIME = 1 << 7;
const SERVICE = 1 << 8;

const STATES: readonly (ObjectState | undefined)[] = [
  undefined,
  "PENDING",
  "OK",
  "WARNING",
  "CRITICAL",
  "UNKNOWN",
  "UP",
  "DOWN",
  "UNREACHABLE",
];

/**
 * The summary of the record `bytes[start..start + len)` of the object `key`. Walks the record's
 * fields (a dozen tags; output and perfdata are skipped by their lengths), allocating nothing.
 */
export function statusSummary(bytes: Uint8Array, start: number, len: number, key: string): StatusSummary {
  const end = start + len;
  let p = start;
  let out = key.includes("!") ? SERVICE : 0;
  while (p < end) {
    // Tags are at most two bytes here (fields up to 19).
    let tag = bytes[p++] as number;
    if (tag >= 0x80) tag = (tag & 0x7f) | ((bytes[p++] as number) << 7);
    const field = tag >>> 3;
    switch (tag & 7) {
      case 0: {
        // Only small values matter (state numbers, booleans); a long varint is skipped.
        let b = bytes[p++] as number;
        const v = b & 0x7f;
        while (b >= 0x80 && p < end) b = bytes[p++] as number;
        if (field === 3) out |= v & 15;
        else if (field === 4 && v === 2) out |= HARD;
        else if (field === 13 && v !== 0) out |= FLAPPING;
        else if (field === 16 && v !== 0) out |= IN_DOWNTIME;
        break;
      }
      case 1:
        p += 8;
        break;
      case 2: {
        // A record's length fits in 28 bits (the arena's slots are at most a few MiB).
        let n = 0;
        let shift = 0;
        let b: number;
        do {
          b = bytes[p++] as number;
          n |= (b & 0x7f) << shift;
          shift += 7;
        } while (b >= 0x80 && p < end && shift < 28);
        if (field === 15) out |= ACKNOWLEDGED;
        p += n;
        break;
      }
      case 5:
        p += 4;
        break;
      default:
        // Not a record this codec wrote: summarize what was read.
        return out;
    }
  }
  return out;
}

/** What a summary says, for counting. */
export interface SummaryFields {
  readonly kind: "host" | "service";
  readonly state: ObjectState;
  readonly stateType: StateType;
  readonly flapping: boolean;
  readonly acknowledged: boolean;
  readonly inDowntime: boolean;
}

/** The fields of a summary; a record without a state field reads PENDING. */
export function summaryFields(s: StatusSummary): SummaryFields {
  return {
    kind: (s & SERVICE) !== 0 ? "service" : "host",
    state: STATES[s & 15] ?? "PENDING",
    stateType: (s & HARD) !== 0 ? "HARD" : "SOFT",
    flapping: (s & FLAPPING) !== 0,
    acknowledged: (s & ACKNOWLEDGED) !== 0,
    inDowntime: (s & IN_DOWNTIME) !== 0,
  };
}
