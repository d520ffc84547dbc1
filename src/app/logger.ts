import type { LogFields, Logger } from "../model/logger.js";

export type LogLevel = "debug" | "info" | "warn" | "error";
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Whether a string names a log level. */
export function isLogLevel(s: string): s is LogLevel {
  return s in RANK;
}

/**
 * A logger that writes one JSON object per line (`{"time","level","msg",...fields}`), the shape log
 * shippers expect. Errors in fields are reduced to their message.
 */
export function createJsonLogger(
  level: LogLevel = "info",
  write: (line: string) => void = (l) => process.stderr.write(l),
  base: LogFields = {},
): Logger {
  const min = RANK[level];
  const emit = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (RANK[lvl] < min) return;
    const rec: Record<string, unknown> = { time: new Date().toISOString(), level: lvl, msg, ...base };
    if (fields) {
      for (const [k, v] of Object.entries(fields)) rec[k] = v instanceof Error ? v.message : v;
    }
    write(`${JSON.stringify(rec)}\n`);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    child: (f) => createJsonLogger(level, write, { ...base, ...f }),
  };
}
