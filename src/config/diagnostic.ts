/**
 * A problem the loader found in a configuration document, at the user's file:line:column. This is
 * the `ConfigDiagnostic` message of the API, and what `lookout validate` prints.
 */
export interface ConfigDiagnostic {
  readonly message: string;
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based, counted as the CUE engine counts (see src/cue). */
  readonly column: number;
  /**
   * How many places have this problem, when more than one (one mistake in a template that many
   * hosts use; the message says so too, `(in 10,000 hosts: …)`). The reload log shows it; the API's
   * ConfigDiagnostic has the message only.
   */
  readonly instances?: number;
}

/** A position in a source file, as the CUE engine reports it. */
export interface SourcePosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** `file:line:column: message`, the form compilers and `cue vet` print. */
export function formatDiagnostic(d: ConfigDiagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.message}`;
}

/** A copy sorted by file, line and column, with exact duplicates removed; the order users read. */
export function sortDiagnostics(diagnostics: readonly ConfigDiagnostic[]): ConfigDiagnostic[] {
  const seen = new Set<string>();
  const out: ConfigDiagnostic[] = [];
  for (const d of diagnostics) {
    const k = formatDiagnostic(d);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(d);
  }
  return out.sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      a.line - b.line ||
      a.column - b.column ||
      (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  );
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A document path as CUE prints it: `hosts.web1.check.type`, `hosts."web-1".check`,
 * `notifications.oncall.levels.0.contacts`.
 */
export function formatPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return "(root)";
  return path
    .map((p) =>
      typeof p === "number" || IDENTIFIER.test(p) || /^#[A-Za-z_]/.test(p) ? String(p) : JSON.stringify(p),
    )
    .join(".");
}
