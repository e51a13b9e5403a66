/**
 * Even ticks for a count axis from 0: a round step (1, 2 or 5 times a power of ten, never a
 * fraction of a message) with at most `most` intervals, up to the first tick at or above `max`.
 * 0 → [0, 1]; 7 → [0, 2, 4, 6, 8]; 37 → [0, 10, 20, 30, 40].
 */
export function niceTicks(max: number, most = 5): number[] {
  const top = Math.max(1, Math.ceil(max));
  let step = 1;
  for (let power = 1; ; power *= 10) {
    const found = [1, 2, 5].map((m) => m * power).find((candidate) => Math.ceil(top / candidate) <= most);
    if (found !== undefined) {
      step = found;
      break;
    }
  }
  const last = Math.ceil(top / step) * step;
  const ticks: number[] = [];
  for (let tick = 0; tick <= last; tick += step) ticks.push(tick);
  return ticks;
}

/** A count axis with even ticks (recharts' axis props): its domain ends on the last tick. */
export function countAxis(max: number) {
  const ticks = niceTicks(max);
  return {
    ticks,
    domain: [0, ticks.at(-1) ?? 1] as [number, number],
    allowDecimals: false,
    interval: 0 as const,
  };
}
