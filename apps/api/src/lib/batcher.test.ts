import { describe, expect, it } from 'vitest';
import { createBatcher } from './batcher.ts';

describe('createBatcher', () => {
  it('with no wait, starts a batch at once and gathers what arrives while it runs into the next', async () => {
    const batches: number[][] = [];
    let release = () => {};
    const batcher = createBatcher<number, number>({
      waitMs: 0,
      run: async (items) => {
        batches.push(items);
        if (batches.length === 1) await new Promise<void>((r) => (release = r));
        return items.map((i) => i * 10);
      },
    });
    const first = batcher.add(1);
    await new Promise((r) => setImmediate(r));
    // The first batch is running: these wait for it, then go together.
    const later = [batcher.add(2), batcher.add(3), batcher.add(4)];
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1]]);
    release();
    expect(await first).toBe(10);
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('with `alone`, runs a failed batch again item by item: only the bad item fails', async () => {
    const batches: string[][] = [];
    const batcher = createBatcher<string, string>({
      waitMs: 0,
      alone: true,
      run: async (items) => {
        batches.push(items);
        if (items.includes('bad')) throw new Error('refused');
        return items.map((i) => i.toUpperCase());
      },
    });
    const results = await Promise.allSettled(['a', 'bad', 'c'].map((i) => batcher.add(i)));
    expect(results).toEqual([
      { status: 'fulfilled', value: 'A' },
      { status: 'rejected', reason: new Error('refused') },
      { status: 'fulfilled', value: 'C' },
    ]);
    expect(batches).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('without `alone`, a failed batch fails every item; with a wait, items within it go together', async () => {
    const batches: number[][] = [];
    const batcher = createBatcher<number>({
      waitMs: 20,
      run: async (items) => {
        batches.push(items);
        throw new Error('down');
      },
    });
    const first = batcher.add(1);
    await new Promise((r) => setTimeout(r, 5));
    const second = batcher.add(2);
    await expect(first).rejects.toThrow('down');
    await expect(second).rejects.toThrow('down');
    expect(batches).toEqual([[1, 2]]);
  });

  it('with `maxWeight`, puts what does not fit into the next batch (an item heavier than it alone)', async () => {
    const batches: string[][] = [];
    const batcher = createBatcher<string, number>({
      waitMs: 0,
      maxWeight: 10,
      weight: (item) => item.length,
      run: async (items) => {
        batches.push(items);
        return items.map((i) => i.length);
      },
    });
    const sizes = await Promise.all(['aaaa', 'bbbb', 'cc', 'dddddddddddd', 'e'].map((i) => batcher.add(i)));
    expect(sizes).toEqual([4, 4, 2, 12, 1]);
    expect(batches).toEqual([['aaaa', 'bbbb', 'cc'], ['dddddddddddd'], ['e']]);
  });
});
