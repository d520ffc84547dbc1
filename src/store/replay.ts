import { openEventLogReader } from "./event-log.js";
import { createFold } from "./fold.js";
import {
  createProjection,
  DEFAULT_PROJECTION_LIMITS,
  type ProjectionLimits,
  type ProjectionSnapshot,
} from "./projection.js";

/**
 * Rebuilds the projection from the event log alone, folding every event from sequence 1 (up to
 * `upTo`, default all) into an empty projection: the reference a recovered projection, or a
 * snapshot's, must equal. Reads the log through a read-only connection, so it may run while a
 * writer is live (it then sees a consistent prefix).
 */
export function replayProjection(
  dataDir: string,
  limits: ProjectionLimits = DEFAULT_PROJECTION_LIMITS,
  upTo = Number.POSITIVE_INFINITY,
): ProjectionSnapshot {
  const reader = openEventLogReader(dataDir);
  try {
    const projection = createProjection(undefined, limits);
    const fold = createFold();
    for (let after = 0; after < upTo; ) {
      const rows = reader.eventsAfter(after, 10_000);
      if (rows.length === 0) break;
      for (const r of rows) if (r.seq <= upTo) fold.apply(r.event, r.seq);
      after = (rows[rows.length - 1] as { seq: number }).seq;
      const delta = fold.take();
      if (delta !== undefined) projection.applyDelta(delta);
    }
    return projection.snapshot();
  } finally {
    reader.close();
  }
}
