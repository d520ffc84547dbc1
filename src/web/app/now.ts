import { useEffect, useState } from "preact/hooks";

/** The wall clock, ticking every `ms`, so durations ("3m 12s") stay current without reloads. */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}
