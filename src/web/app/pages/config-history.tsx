import { timestampMs } from "@bufbuild/protobuf/wkt";
import { useEffect, useRef, useState } from "preact/hooks";
import type { ConfigVersion, DiffConfigResponse } from "../../../api/gen/svc/v1/admin_service_pb.js";
import type { ConfigDiagnostic } from "../../../api/gen/svc/v1/types_pb.js";
import { access } from "../access.js";
import { admin, messageOf } from "../api.js";
import { diagnosticsOf, PlanTable } from "../components/config-plan.js";
import { UnifiedDiff } from "../components/unified-diff.js";
import { when } from "../format.js";
import { href, type Route } from "../router.js";
import { refreshAll } from "../status-source.js";
import { useStore } from "../store.js";
import { AdminGate } from "./admin-gate.js";

const PAGE = 50;

/**
 * The config history (admins): every version that became the config in force, paged
 * (ListConfigVersions); a version's text (GetConfig with a version); two versions compared
 * (DiffConfig: the unified text diff and the object diff); and a rollback to a version
 * (RollbackConfig) after a confirmation. What is shown is in the address: `?show=N`, `?from=N&to=M`.
 */
export function ConfigHistoryPage(props: { route: Route }) {
  const a = useStore(access);
  return (
    <section aria-labelledby="config-history-title">
      <h1 id="config-history-title">Config history</h1>
      <AdminGate access={a.admin}>
        <ConfigHistory route={props.route} />
      </AdminGate>
    </section>
  );
}

/** A version number from the address; undefined when absent or not a positive integer. */
function versionParam(v: string | null): bigint | undefined {
  return v !== null && /^[1-9][0-9]*$/.test(v) ? BigInt(v) : undefined;
}

type RollbackOutcome =
  | { kind: "done"; version: bigint; recorded: bigint }
  | { kind: "refused"; version: bigint; diagnostics: ConfigDiagnostic[]; message: string }
  | { kind: "error"; message: string };

function ConfigHistory(props: { route: Route }) {
  const p = props.route.params;
  const show = versionParam(p.get("show"));
  const from = versionParam(p.get("from"));
  const to = versionParam(p.get("to"));
  const [versions, setVersions] = useState<readonly ConfigVersion[]>([]);
  const [token, setToken] = useState("");
  const [error, setError] = useState("");
  const [loaded, setLoaded] = useState(false);
  const [generation, setGeneration] = useState(0);
  const [confirm, setConfirm] = useState<ConfigVersion | undefined>(undefined);
  const [outcome, setOutcome] = useState<RollbackOutcome | undefined>(undefined);
  const [draftFrom, setDraftFrom] = useState(from === undefined ? "" : String(from));
  const [draftTo, setDraftTo] = useState(to === undefined ? "" : String(to));

  useEffect(() => {
    let stop = false;
    (async () => {
      try {
        const res = await admin.listConfigVersions({ pageSize: PAGE });
        if (stop) return;
        setVersions(res.versions);
        setToken(res.nextPageToken);
        setError("");
      } catch (e) {
        if (!stop) setError(messageOf(e));
      }
      if (!stop) setLoaded(true);
    })();
    return () => {
      stop = true;
    };
  }, [generation]);

  async function older() {
    try {
      const res = await admin.listConfigVersions({ pageSize: PAGE, pageToken: token });
      setVersions((v) => [...v, ...res.versions]);
      setToken(res.nextPageToken);
    } catch (e) {
      setError(messageOf(e));
    }
  }

  async function rollback(v: ConfigVersion) {
    setConfirm(undefined);
    try {
      const res = await admin.rollbackConfig({ version: v.version });
      setOutcome({ kind: "done", version: v.version, recorded: res.version });
      refreshAll();
    } catch (e) {
      const diagnostics = diagnosticsOf(e);
      setOutcome(
        diagnostics === undefined
          ? { kind: "error", message: messageOf(e) }
          : { kind: "refused", version: v.version, diagnostics, message: messageOf(e) },
      );
    }
    setGeneration((g) => g + 1);
  }

  const newest = versions[0]?.version;
  const go = (params: Record<string, string | undefined>) => {
    location.hash = href("config-history", params).slice(1);
  };
  return (
    <>
      <p class="muted">
        Every document that became the config in force, newest first (docs/config-history.md). Roll back
        applies a version's document again, as Apply does.
      </p>
      <div role="status" aria-live="polite" class="outcome">
        {outcome?.kind === "done" &&
          (outcome.recorded === 0n ? (
            <p class="ok">
              Version {String(outcome.version)} is the config in force already; nothing changed.
            </p>
          ) : (
            <p class="ok">
              Rolled back to version {String(outcome.version)}: applied and recorded as version{" "}
              {String(outcome.recorded)}.
            </p>
          ))}
        {outcome?.kind === "refused" && (
          <div class="error">
            <p>
              Version {String(outcome.version)} no longer loads; the rollback was refused and nothing changed.
            </p>
            <Diagnostics list={outcome.diagnostics} />
          </div>
        )}
        {outcome?.kind === "error" && <p class="error">{outcome.message}</p>}
      </div>
      {error !== "" && <p class="error">{error}</p>}
      {loaded && versions.length === 0 && error === "" && (
        <p class="muted">No version is recorded (the server runs without -config).</p>
      )}
      <table class="plain versions" aria-label="Config versions">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Applied</th>
            <th scope="col">By</th>
            <th scope="col">Changes</th>
            <th scope="col">sha256</th>
            <th scope="col">Size</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v, i) => {
            const n = String(v.version);
            const previous = versions[i + 1]?.version ?? (v.version > 1n ? v.version - 1n : undefined);
            return (
              <tr key={n} aria-current={show === v.version ? "true" : undefined}>
                <th scope="row">
                  v{n}
                  {v.version === newest && <span class="tag">in force</span>}
                </th>
                <td class="nowrap">{when(v.appliedAt === undefined ? 0 : timestampMs(v.appliedAt))}</td>
                <td>{v.appliedBy}</td>
                <td class="small">
                  {v.rollbackOf > 0n && <span class="tag">rollback to v{String(v.rollbackOf)}</span>}{" "}
                  {v.summary}
                </td>
                <td>
                  <code title={v.sha256}>{v.sha256.slice(0, 12)}</code>
                </td>
                <td class="nowrap">{v.sizeBytes.toLocaleString()} B</td>
                <td class="nowrap row-actions">
                  <a href={href("config-history", { show: n })} aria-label={`Show version ${n}`}>
                    Show
                  </a>
                  {previous !== undefined && (
                    <a
                      href={href("config-history", { from: String(previous), to: n })}
                      aria-label={`Changes in version ${n}`}
                    >
                      Changes
                    </a>
                  )}
                  {v.version !== newest && (
                    <button
                      type="button"
                      onClick={() => setConfirm(v)}
                      aria-label={`Roll back to version ${n}`}
                    >
                      Roll back…
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {token !== "" && (
        <button type="button" onClick={older}>
          Older
        </button>
      )}
      <form
        class="filters"
        aria-label="Compare two versions"
        onSubmit={(e) => {
          e.preventDefault();
          go({ from: draftFrom.trim(), to: draftTo.trim() });
        }}
      >
        <label>
          From version
          <input
            name="from"
            inputMode="numeric"
            value={draftFrom}
            required
            pattern="[1-9][0-9]*"
            onInput={(e) => setDraftFrom(e.currentTarget.value)}
          />
        </label>
        <label>
          To version
          <input
            name="to"
            inputMode="numeric"
            value={draftTo}
            placeholder="newest"
            pattern="[1-9][0-9]*"
            onInput={(e) => setDraftTo(e.currentTarget.value)}
          />
        </label>
        <button type="submit">Compare</button>
      </form>
      {show !== undefined && <VersionText version={show} />}
      {from !== undefined && <VersionDiff from={from} to={to} />}
      <RollbackDialog version={confirm} onCancel={() => setConfirm(undefined)} onConfirm={rollback} />
    </>
  );
}

function Diagnostics(props: { list: readonly ConfigDiagnostic[] }) {
  return (
    <ul class="diagnostics">
      {props.list.map((d, i) => (
        <li key={i}>
          <code>
            {d.file === "" ? "" : `${d.file}:`}
            {d.line}:{d.column}
          </code>{" "}
          {d.message}
        </li>
      ))}
    </ul>
  );
}

/** One version's document (GetConfig with a version), with line numbers. */
function VersionText(props: { version: bigint }) {
  const [text, setText] = useState<string | undefined>(undefined);
  const [error, setError] = useState("");
  useEffect(() => {
    let stop = false;
    setText(undefined);
    setError("");
    admin.getConfig({ version: props.version }).then(
      (r) => !stop && setText(r.cue),
      (e: unknown) => !stop && setError(messageOf(e)),
    );
    return () => {
      stop = true;
    };
  }, [props.version]);
  return (
    <section aria-labelledby="version-title">
      <h2 id="version-title">Version {String(props.version)}</h2>
      {error !== "" && <p class="error">{error}</p>}
      {text === undefined && error === "" && <p class="muted">Loading…</p>}
      {text !== undefined && (
        <pre class="output-block numbered" data-testid="version-text">
          {text
            .replace(/\n$/, "")
            .split("\n")
            .map((l, i) => (
              <span key={i} class="ln">
                {l}
                {"\n"}
              </span>
            ))}
        </pre>
      )}
    </section>
  );
}

/** Two versions compared (DiffConfig): the text diff, then what applying `to` over `from` changes. */
function VersionDiff(props: { from: bigint; to: bigint | undefined }) {
  const { from, to } = props;
  const [diff, setDiff] = useState<DiffConfigResponse | undefined>(undefined);
  const [error, setError] = useState("");
  useEffect(() => {
    let stop = false;
    setDiff(undefined);
    setError("");
    admin.diffConfig({ fromVersion: from, ...(to === undefined ? {} : { toVersion: to }) }).then(
      (r) => !stop && setDiff(r),
      (e: unknown) => !stop && setError(messageOf(e)),
    );
    return () => {
      stop = true;
    };
  }, [from, to]);
  const title = `Version ${String(from)} → ${to === undefined ? "the newest" : `version ${String(to)}`}`;
  return (
    <section aria-labelledby="diff-title">
      <h2 id="diff-title">{title}</h2>
      {error !== "" && <p class="error">{error}</p>}
      {diff === undefined && error === "" && <p class="muted">Comparing…</p>}
      {diff !== undefined && (
        <>
          <h3>Objects and settings</h3>
          {diff.diagnostics.length > 0 ? (
            <div class="error">
              <p>A version no longer loads, so the objects cannot be compared:</p>
              <Diagnostics list={diff.diagnostics} />
            </div>
          ) : (
            <PlanTable plan={diff.sections} />
          )}
          <h3>Text</h3>
          {diff.unified === "" ? (
            <p class="muted">The two documents are the same.</p>
          ) : (
            <UnifiedDiff text={diff.unified} />
          )}
        </>
      )}
    </section>
  );
}

/** Asks before a rollback (a native <dialog>: Escape cancels, focus stays inside). */
function RollbackDialog(props: {
  version: ConfigVersion | undefined;
  onCancel: () => void;
  onConfirm: (v: ConfigVersion) => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const v = props.version;
  useEffect(() => {
    const d = ref.current;
    if (d === null) return;
    if (v !== undefined && !d.open) d.showModal();
    else if (v === undefined && d.open) d.close();
  }, [v]);
  return (
    <dialog ref={ref} class="dialog" onClose={props.onCancel} aria-labelledby="rollback-title">
      {v !== undefined && (
        <form
          method="dialog"
          onSubmit={(e) => {
            e.preventDefault();
            props.onConfirm(v);
          }}
        >
          <h2 id="rollback-title">Roll back to version {String(v.version)}?</h2>
          <p>
            Its document (applied {when(v.appliedAt === undefined ? 0 : timestampMs(v.appliedAt))} by{" "}
            {v.appliedBy}, sha256 <code>{v.sha256.slice(0, 12)}</code>) is applied again, as Apply does: the
            config file is rewritten and every component reloads. The rollback is recorded as a new version
            and in the audit log.
          </p>
          <div class="buttons">
            <button type="button" onClick={props.onCancel}>
              Cancel
            </button>
            <button type="submit" class="primary">
              Roll back to version {String(v.version)}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
