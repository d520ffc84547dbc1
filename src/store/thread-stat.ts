import { readFileSync } from "node:fs";

/**
 * The fields of the calling thread's /proc/thread-self/stat line after its command name (which is
 * in parentheses and may contain spaces): index 0 is field 3 of proc(5), the state. Undefined where
 * that is not readable (not Linux).
 */
export function threadStatFields(): string[] | undefined {
  try {
    const stat = readFileSync("/proc/thread-self/stat", "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}
