import { describe, expect, it } from 'vitest';
import { niceTicks } from './chart-ticks';

describe('niceTicks', () => {
  it('gives round, evenly spaced ticks from 0 covering the largest count', () => {
    expect(niceTicks(0)).toEqual([0, 1]);
    expect(niceTicks(1)).toEqual([0, 1]);
    expect(niceTicks(3)).toEqual([0, 1, 2, 3]);
    expect(niceTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(8)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(11)).toEqual([0, 5, 10, 15]);
    expect(niceTicks(37)).toEqual([0, 10, 20, 30, 40]);
    expect(niceTicks(1234)).toEqual([0, 500, 1000, 1500]);
  });

  it('never has a fractional tick, more than five intervals, or an uneven step', () => {
    for (let max = 0; max <= 5000; max += 7) {
      const ticks = niceTicks(max);
      expect(ticks[0]).toBe(0);
      expect(ticks.at(-1)!).toBeGreaterThanOrEqual(max);
      expect(ticks.length - 1).toBeLessThanOrEqual(5);
      const step = ticks[1]! - ticks[0]!;
      expect(Number.isInteger(step)).toBe(true);
      expect(/^[125]0*$/.test(String(step))).toBe(true);
      for (const [i, tick] of ticks.entries()) expect(tick).toBe(i * step);
    }
  });
});
