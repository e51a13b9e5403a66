import { describe, expect, it } from 'vitest';
import { onFirstUse } from './on-first-use.ts';

describe('onFirstUse', () => {
  it('loads once for every caller, and tries again after a failed load', async () => {
    let loads = 0;
    const load = onFirstUse(async () => {
      loads += 1;
      if (loads === 1) throw new Error('EMFILE: too many open files');
      return { ready: loads };
    });
    await expect(load()).rejects.toThrow('EMFILE');
    const [a, b] = await Promise.all([load(), load()]);
    expect(a).toBe(b);
    expect(await load()).toEqual({ ready: 2 });
    expect(loads).toBe(2);
  });
});
