/** Above this many lines a diff is cut (the rest is said, not drawn). */
const MAX_LINES = 20_000;

function lineClass(l: string): string {
  if (l.startsWith("+++") || l.startsWith("---")) return "d-file";
  if (l.startsWith("@@")) return "d-hunk";
  if (l.startsWith("+")) return "d-add";
  if (l.startsWith("-")) return "d-del";
  return "d-ctx";
}

/**
 * A unified diff (`diff -u`), one line per row: added lines green with "+", removed ones red with
 * "−", hunk headers apart. The sign stays in the text, so the diff reads without colour too.
 */
export function UnifiedDiff(props: { text: string }) {
  const lines = props.text.replace(/\n$/, "").split("\n");
  const shown = lines.length > MAX_LINES ? lines.slice(0, MAX_LINES) : lines;
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.startsWith("+") && !l.startsWith("+++")) added++;
    else if (l.startsWith("-") && !l.startsWith("---")) removed++;
  }
  return (
    <>
      <p class="muted">
        +{added} / −{removed} lines
      </p>
      <pre class="diff" data-testid="unified-diff">
        {shown.map((l, i) => (
          <span key={i} class={lineClass(l)}>
            {l}
            {"\n"}
          </span>
        ))}
      </pre>
      {shown.length < lines.length && (
        <p class="muted">{(lines.length - shown.length).toLocaleString()} more lines not shown.</p>
      )}
    </>
  );
}
