import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { PlanSection } from "../../../api/gen/svc/v1/admin_service_pb.js";
import type { ConfigDiagnostic } from "../../../api/gen/svc/v1/types_pb.js";
import { access } from "../access.js";
import { admin, messageOf } from "../api.js";
import { diagnosticsOf, PlanTable } from "../components/config-plan.js";
import { refreshAll } from "../status-source.js";
import { useStore } from "../store.js";
import { AdminGate } from "./admin-gate.js";

/** Lines added and removed between two texts, counted as multisets (cheap on large documents). */
function lineChanges(before: string, after: string): { added: number; removed: number } {
  const counts = new Map<string, number>();
  for (const l of before.split("\n")) counts.set(l, (counts.get(l) ?? 0) + 1);
  let added = 0;
  for (const l of after.split("\n")) {
    const n = counts.get(l) ?? 0;
    if (n > 0) counts.set(l, n - 1);
    else added++;
  }
  let removed = 0;
  for (const n of counts.values()) removed += n;
  return { added, removed };
}

type Outcome =
  | { kind: "none" }
  | { kind: "valid"; plan: readonly PlanSection[] }
  | { kind: "applied" }
  | { kind: "rejected"; diagnostics: ConfigDiagnostic[] }
  | { kind: "error"; message: string };

/**
 * The config page (admins): the served document from GetConfig in an editor with line numbers,
 * ValidateConfig with each diagnostic shown at its line and column, the plan of what the document
 * would change (PlanConfig), and ApplyConfig.
 */
export function ConfigPage() {
  const a = useStore(access);
  return (
    <section aria-labelledby="config-title">
      <h1 id="config-title">Configuration</h1>
      <AdminGate access={a.admin}>
        <ConfigEditor />
      </AdminGate>
    </section>
  );
}

function ConfigEditor() {
  const [served, setServed] = useState<string | undefined>(undefined);
  const [text, setText] = useState("");
  const [outcome, setOutcome] = useState<Outcome>({ kind: "none" });
  const [busy, setBusy] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);

  async function load() {
    try {
      const res = await admin.getConfig({});
      setServed(res.cue);
      setText(res.cue);
    } catch (e) {
      setOutcome({ kind: "error", message: messageOf(e) });
    }
  }
  useEffect(() => {
    void load();
  }, []);

  const lines = useMemo(() => text.split("\n").length, [text]);
  const changes = useMemo(
    () => (served === undefined ? undefined : lineChanges(served, text)),
    [served, text],
  );
  const bad = new Map<number, string>();
  if (outcome.kind === "rejected") for (const d of outcome.diagnostics) bad.set(d.line, d.message);

  async function run(kind: "validate" | "apply") {
    setBusy(true);
    try {
      if (kind === "validate") {
        await admin.validateConfig({ cue: text });
        const plan = await admin.planConfig({ cue: text });
        setOutcome({ kind: "valid", plan: plan.sections });
      } else {
        await admin.applyConfig({ cue: text });
        setOutcome({ kind: "applied" });
        setServed(text);
        refreshAll();
      }
    } catch (e) {
      const diagnostics = diagnosticsOf(e);
      setOutcome(
        diagnostics === undefined
          ? { kind: "error", message: messageOf(e) }
          : { kind: "rejected", diagnostics },
      );
    } finally {
      setBusy(false);
    }
  }

  /** Puts the cursor at line:column (1-based) and scrolls it into view. */
  function goTo(line: number, column: number) {
    const el = area.current;
    if (el === null) return;
    const ls = el.value.split("\n");
    let offset = 0;
    for (let i = 0; i < line - 1 && i < ls.length; i++) offset += (ls[i] as string).length + 1;
    offset += Math.max(0, column - 1);
    el.focus();
    el.setSelectionRange(offset, offset + 1);
    const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || 18;
    el.scrollTop = Math.max(0, (line - 5) * lineHeight);
  }

  const numbers: preact.ComponentChildren[] = [];
  for (let i = 1; i <= lines; i++) {
    const msg = bad.get(i);
    numbers.push(
      <div key={i} class={msg === undefined ? undefined : "bad"} title={msg}>
        {i}
      </div>,
    );
  }
  return (
    <>
      <div class="bulk">
        <button type="button" disabled={busy} onClick={() => run("validate")}>
          Validate
        </button>
        <button type="button" class="primary" disabled={busy} onClick={() => run("apply")}>
          Apply
        </button>
        <button type="button" disabled={busy} onClick={() => load()}>
          Reload served
        </button>
        {changes !== undefined && (
          <span class="muted">
            Changes against the served document: +{changes.added} / −{changes.removed} lines
          </span>
        )}
      </div>
      <div role="status" aria-live="polite" class="outcome">
        {outcome.kind === "valid" && (
          <>
            <p class="ok">The document is valid; nothing was written.</p>
            <PlanTable plan={outcome.plan} />
          </>
        )}
        {outcome.kind === "applied" && <p class="ok">Applied: the file is rewritten and reloaded.</p>}
        {outcome.kind === "error" && <p class="error">{outcome.message}</p>}
        {outcome.kind === "rejected" && (
          <div class="error">
            <p>The document was rejected; nothing changed.</p>
            <ul class="diagnostics">
              {outcome.diagnostics.map((d, i) => (
                <li key={i}>
                  <button type="button" class="link" onClick={() => goTo(d.line, d.column)}>
                    {d.file === "" ? "" : `${d.file}:`}
                    {d.line}:{d.column}
                  </button>{" "}
                  {d.message}
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
      {served === undefined ? (
        <p class="muted">Loading the served document…</p>
      ) : (
        <div class="editor">
          <div class="gutter" ref={gutter} aria-hidden="true">
            {numbers}
          </div>
          <textarea
            ref={area}
            aria-label="Configuration document (CUE)"
            spellcheck={false}
            wrap="off"
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
            onScroll={(e) => {
              if (gutter.current !== null) gutter.current.scrollTop = e.currentTarget.scrollTop;
            }}
          />
        </div>
      )}
    </>
  );
}
