import { useEffect, useState } from "preact/hooks";

/** A parsed `#/page/arg…?k=v` address: pages are linkable and the back button works. */
export interface Route {
  readonly page: string;
  readonly args: readonly string[];
  readonly params: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const h = hash.replace(/^#\/?/, "");
  const q = h.indexOf("?");
  const path = q < 0 ? h : h.slice(0, q);
  const parts = path
    .split("/")
    .filter((p) => p !== "")
    .map(decodeURIComponent);
  return {
    page: parts[0] ?? "",
    args: parts.slice(1),
    params: new URLSearchParams(q < 0 ? "" : h.slice(q + 1)),
  };
}

/** The current route, following hash changes. */
export function useRoute(): Route {
  const [r, setR] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setR(parseRoute(location.hash));
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  return r;
}

/** `#/page?k=v` with the empty values left out. */
export function href(page: string, params: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, v);
  const s = q.toString();
  return `#/${page}${s === "" ? "" : `?${s}`}`;
}

/** Replaces the address without adding a history entry (typing in a filter box). */
export function replaceRoute(to: string): void {
  history.replaceState(null, "", to);
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}
