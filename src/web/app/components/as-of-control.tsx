import { useEffect, useState } from "preact/hooks";
import { asOfValue, fromLocalInput, toLocalInput } from "../as-of.js";
import { since, when } from "../format.js";
import { href, type Route } from "../router.js";
import type { Snapshot } from "../status-source.js";

/** Quick choices: that long before now. */
const QUICK: readonly { label: string; ms: number }[] = [
  { label: "−1h", ms: 3_600_000 },
  { label: "−6h", ms: 6 * 3_600_000 },
  { label: "−1d", ms: 86_400_000 },
  { label: "−7d", ms: 7 * 86_400_000 },
];

/** The current address with `at` set (a moment) or removed (undefined: the live view). */
function withAt(route: Route, at: number | undefined): string {
  const params: Record<string, string | undefined> = {};
  for (const [k, v] of route.params) params[k] = v;
  params.at = at === undefined ? undefined : asOfValue(at);
  return href(route.page, params);
}

/**
 * The time control of the status and overview pages: "Live", or "As of" a past moment picked with a
 * date and time or a quick choice. The moment goes into the address (a new history entry, so Back
 * returns), the live view is one link away, and an out_of_range refusal says which moment is the
 * oldest the server can answer, with a link to it.
 */
export function AsOfControl(props: { route: Route; at: number | undefined; snap: Snapshot }) {
  const { route, at, snap } = props;
  const [draft, setDraft] = useState(() => toLocalInput(at ?? Date.now()));
  useEffect(() => {
    if (at !== undefined) setDraft(toLocalInput(at));
  }, [at]);
  const go = (ms: number | undefined) => {
    location.hash = withAt(route, ms).slice(1);
  };
  const picked = fromLocalInput(draft);
  return (
    <fieldset class={`as-of${at === undefined ? "" : " past"}`} aria-label="Time">
      {at === undefined ? (
        <span class="live" data-testid="live">
          Live
        </span>
      ) : (
        <>
          <strong data-testid="as-of">As of {when(at)}</strong>
          <span class="muted">({since(at, Date.now())} ago; nothing updates)</span>
          <a class="button" href={withAt(route, undefined)}>
            Back to live
          </a>
        </>
      )}
      <form
        class="as-of-pick"
        onSubmit={(e) => {
          e.preventDefault();
          if (picked !== undefined) go(picked);
        }}
      >
        <label>
          As of
          <input
            type="datetime-local"
            step={1}
            value={draft}
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={picked === undefined}>
          Show
        </button>
      </form>
      <span class="quick">
        {QUICK.map((q) => (
          <button
            key={q.label}
            type="button"
            title={`The status ${q.label.slice(1)} ago`}
            onClick={() => go(Date.now() - q.ms)}
          >
            {q.label}
          </button>
        ))}
      </span>
      {at !== undefined && snap.error !== undefined && (
        <div class="error as-of-error" role="alert">
          {snap.outOfRange === true ? (
            <>
              <p>
                The server cannot answer for {when(at)}: it is outside what the log keeps.
                {snap.oldest !== undefined && <> The oldest moment it can answer is {when(snap.oldest)}.</>}
              </p>
              <p class="small">{snap.error}</p>
              {snap.oldest !== undefined && (
                <a class="button" href={withAt(route, snap.oldest)}>
                  Show {when(snap.oldest)}
                </a>
              )}
            </>
          ) : (
            <p>{snap.error}</p>
          )}
        </div>
      )}
    </fieldset>
  );
}
