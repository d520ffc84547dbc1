import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { createDueHeap, type HeapItem } from "./due-heap.js";

interface Item extends HeapItem {
  id: number;
}

const item = (id: number, due: number): Item => ({ id, due, heapIndex: -1, heapSeq: 0 });

test("heap pops in (due, insertion) order after any mix of pushes and removals", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.boolean()), { maxLength: 200 }),
      (ops) => {
        const heap = createDueHeap<Item>();
        const live: Item[] = [];
        ops.forEach(([due, removeOne], id) => {
          const it = item(id, due);
          heap.push(it);
          live.push(it);
          if (removeOne && live.length > 0) {
            const victim = live.splice((due * 7) % live.length, 1)[0]!;
            heap.remove(victim);
            assert.equal(victim.heapIndex, -1);
          }
        });
        assert.equal(heap.size, live.length);
        const want = [...live].sort((a, b) => a.due - b.due || a.id - b.id).map((i) => i.id);
        const got: number[] = [];
        for (let it = heap.pop(); it !== undefined; it = heap.pop()) got.push(it.id);
        assert.deepEqual(got, want);
      },
    ),
  );
});

test("heap edge cases", async (t) => {
  const cases: { name: string; run: () => void }[] = [
    {
      name: "pop and peek on empty heap",
      run: () => {
        const h = createDueHeap<Item>();
        assert.equal(h.peek(), undefined);
        assert.equal(h.pop(), undefined);
      },
    },
    {
      name: "removing an item not queued is a no-op",
      run: () => {
        const h = createDueHeap<Item>();
        h.push(item(1, 5));
        h.remove(item(2, 1));
        assert.equal(h.size, 1);
      },
    },
    {
      name: "pushing a queued item twice throws",
      run: () => {
        const h = createDueHeap<Item>();
        const it = item(1, 5);
        h.push(it);
        assert.throws(() => h.push(it), /already queued/);
      },
    },
    {
      name: "a removed item can be pushed again with a new due time",
      run: () => {
        const h = createDueHeap<Item>();
        const a = item(1, 5);
        const b = item(2, 6);
        h.push(a);
        h.push(b);
        h.remove(a);
        a.due = 7;
        h.push(a);
        assert.deepEqual([h.pop()?.id, h.pop()?.id], [2, 1]);
      },
    },
  ];
  for (const c of cases) await t.test(c.name, c.run);
});
