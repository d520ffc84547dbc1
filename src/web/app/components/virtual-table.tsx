import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";

/** One column: its header, an optional sort key, and how a cell renders. */
export interface Column<R> {
  readonly id: string;
  readonly title: string;
  /** CSS grid track, e.g. "8rem" or "minmax(12rem, 1fr)". */
  readonly width: string;
  readonly sortable?: boolean;
  /** Hidden at phone width. */
  readonly wide?: boolean;
  readonly cell: (row: R) => ComponentChildren;
}

export interface SortState {
  readonly column: string;
  readonly descending: boolean;
}

const ROW_HEIGHT = 36;
const OVERSCAN = 8;

/**
 * A table that renders only the rows in view (plus a few), so 100,000 rows scroll like 40: the
 * DOM holds about a screenful whatever the row count. Headers of sortable columns are buttons.
 */
export function VirtualTable<R>(props: {
  rows: readonly R[];
  columns: readonly Column<R>[];
  rowKey: (r: R) => string;
  rowClass?: (r: R) => string;
  sort?: SortState;
  onSort?: (column: string) => void;
  label: string;
  /** When this changes (a new sort, search or filter), the table scrolls back to the top. */
  resetKey?: string;
}) {
  const { rows, columns, rowKey, rowClass, sort, onSort, label, resetKey } = props;
  const box = useRef<HTMLTableSectionElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  const frame = useRef(0);

  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    setHeight(el.clientHeight);
    return () => ro.disconnect();
  }, []);

  useEffect(() => {
    if (box.current !== null) box.current.scrollTop = 0;
    setTop(0);
  }, [resetKey]);

  function onScroll() {
    if (frame.current !== 0) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      setTop(box.current?.scrollTop ?? 0);
    });
  }

  // The rows may have shrunk since the last scroll event: never start below the last one.
  const at = Math.min(top, Math.max(0, rows.length * ROW_HEIGHT - height));
  const first = Math.max(0, Math.floor(at / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((at + height) / ROW_HEIGHT) + OVERSCAN);
  const template = columns.map((c) => c.width).join(" ");
  const visible: ComponentChildren[] = [];
  for (let i = first; i < last; i++) {
    const r = rows[i] as R;
    visible.push(
      <tr
        aria-rowindex={i + 2}
        class={`vrow ${rowClass?.(r) ?? ""}`}
        key={i % (last - first)}
        data-key={rowKey(r)}
        style={{ transform: `translateY(${i * ROW_HEIGHT}px)` }}
      >
        {columns.map((c) => (
          <td class={`vcell col-${c.id}${c.wide ? " wide" : ""}`} key={c.id}>
            {c.cell(r)}
          </td>
        ))}
      </tr>,
    );
  }
  return (
    <table class="vtable" aria-label={label} aria-rowcount={rows.length + 1} style={{ "--cols": template }}>
      <thead>
        <tr class="vhead" aria-rowindex={1}>
          {columns.map((c) => (
            <th
              scope="col"
              class={`vcell col-${c.id}${c.wide ? " wide" : ""}`}
              key={c.id}
              aria-sort={sort?.column === c.id ? (sort.descending ? "descending" : "ascending") : undefined}
            >
              {c.sortable && onSort ? (
                <button type="button" class="sort" onClick={() => onSort(c.id)}>
                  {c.title}
                  {sort?.column === c.id ? (sort.descending ? " ▼" : " ▲") : ""}
                </button>
              ) : (
                c.title
              )}
            </th>
          ))}
        </tr>
      </thead>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the scroll area takes arrow keys and Page Up/Down */}
      <tbody class="vbody" ref={box} onScroll={onScroll} tabIndex={0}>
        <tr class="vspace" style={{ height: `${Math.max(1, rows.length * ROW_HEIGHT)}px` }} />
        {visible}
        {rows.length === 0 && (
          <tr class="vrow">
            <td class="empty">Nothing to show.</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
