import { useEffect, useState } from "preact/hooks";
import { noteReadError } from "../access.js";
import { messageOf } from "../api.js";

/**
 * Reads `read()` now, every `everyMs` while mounted, whenever `deps` change and whenever `reload()`
 * is called (after a command): the last answer, the last error ("" when the last read worked).
 */
export function usePoll<T>(
  read: () => Promise<T>,
  deps: readonly unknown[],
  everyMs = 3000,
): { data: T | undefined; error: string; reload: () => void } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState("");
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const v = await read();
        if (stop) return;
        setData(v);
        setError("");
      } catch (e) {
        noteReadError(e);
        if (!stop) setError(messageOf(e));
      }
      if (!stop) timer = setTimeout(run, everyMs);
    };
    void run();
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [...deps, tick, everyMs]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}

/**
 * Reads `read()` now and whenever `deps` change, never on a timer (the caller's deps carry its own
 * re-read tick): the last answer, the last error ("" when the last read worked).
 */
export function useRead<T>(
  read: () => Promise<T>,
  deps: readonly unknown[],
): { data: T | undefined; error: string } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState("");
  useEffect(() => {
    let stop = false;
    read().then(
      (v) => {
        if (stop) return;
        setData(v);
        setError("");
      },
      (e: unknown) => {
        noteReadError(e);
        if (!stop) setError(messageOf(e));
      },
    );
    return () => {
      stop = true;
    };
  }, deps);
  return { data, error };
}

/** `1h 30m`, `45m`, `20s`: a duration in ms, as an operator reads it. */
export function formatSpan(ms: number): string {
  const s = Math.round(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const parts = [d > 0 ? `${d}d` : "", h > 0 ? `${h}h` : "", m > 0 ? `${m}m` : "", s < 60 ? `${s}s` : ""];
  return parts.filter((p) => p !== "").join(" ") || "0s";
}
