/**
 * A binary min-heap of items ordered by due time, ties broken by insertion order. Each item carries
 * its own position (`heapIndex`) so removing or moving one object is O(log n) instead of a scan:
 * with 100,000 objects a reload that removes a handful of them must not walk the whole schedule.
 */

/** What the heap needs of an item. `heapIndex` is owned by the heap: -1 when the item is not in it. */
export interface HeapItem {
  due: number;
  heapIndex: number;
  /** Insertion sequence, set by the heap; equal due times pop in the order they were pushed. */
  heapSeq: number;
}

/** A min-heap on (due, insertion order). Not safe to mutate `due` of an item while it is queued. */
export interface DueHeap<T extends HeapItem> {
  readonly size: number;
  /** The earliest item, without removing it. */
  peek(): T | undefined;
  push(item: T): void;
  pop(): T | undefined;
  /** Removes an item wherever it sits; a no-op when it is not queued. */
  remove(item: T): void;
  /** Every queued item, in no particular order. */
  items(): readonly T[];
}

/** Creates an empty heap. */
export function createDueHeap<T extends HeapItem>(): DueHeap<T> {
  const a: T[] = [];
  let seq = 0;

  const less = (x: T, y: T): boolean => x.due < y.due || (x.due === y.due && x.heapSeq < y.heapSeq);

  const place = (item: T, i: number): void => {
    a[i] = item;
    item.heapIndex = i;
  };

  const up = (i: number): void => {
    const item = a[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = a[p]!;
      if (!less(item, parent)) break;
      place(parent, i);
      i = p;
    }
    place(item, i);
  };

  const down = (i: number): void => {
    const n = a.length;
    const item = a[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && less(a[r]!, a[l]!) ? r : l;
      const child = a[c]!;
      if (!less(child, item)) break;
      place(child, i);
      i = c;
    }
    place(item, i);
  };

  const removeAt = (i: number): T => {
    const item = a[i]!;
    const last = a.pop()!;
    item.heapIndex = -1;
    if (i < a.length) {
      place(last, i);
      if (i > 0 && less(last, a[(i - 1) >> 1]!)) up(i);
      else down(i);
    }
    return item;
  };

  return {
    get size() {
      return a.length;
    },
    peek: () => a[0],
    push(item) {
      if (item.heapIndex >= 0) throw new Error("item is already queued");
      item.heapSeq = seq++;
      a.push(item);
      up(a.length - 1);
    },
    pop: () => (a.length === 0 ? undefined : removeAt(0)),
    remove(item) {
      const i = item.heapIndex;
      if (i < 0 || a[i] !== item) return;
      removeAt(i);
    },
    items: () => a,
  };
}
