/**
 * Runs tasks one at a time per key, in this process: parallel sign-in attempts for one account
 * are taken in turn, so a burst cannot slip past the brute-force count.
 */
export function createKeyedMutex() {
  const tails = new Map<string, Promise<unknown>>();
  return async function withLock<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => {});
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}
