/**
 * Items gathered for `waitMs` after the first and handled together (one statement for many rows).
 * `add` resolves once its batch is handled, or rejects with the batch's error; batches run one at
 * a time, in order.
 */
export function createBatcher<T>(options: { waitMs: number; run: (items: T[]) => Promise<void> }) {
  let items: T[] = [];
  let waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  let timer: NodeJS.Timeout | null = null;
  let chain: Promise<void> = Promise.resolve();

  function runNow(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = items;
    const told = waiters;
    items = [];
    waiters = [];
    if (batch.length === 0) return chain;
    chain = chain.then(() =>
      options.run(batch).then(
        () => {
          for (const w of told) w.resolve();
        },
        (error) => {
          for (const w of told) w.reject(error);
        },
      ),
    );
    return chain;
  }

  return {
    add(item: T): Promise<void> {
      items.push(item);
      const done = new Promise<void>((resolve, reject) => waiters.push({ resolve, reject }));
      if (!timer) {
        timer = setTimeout(runNow, options.waitMs);
        timer.unref();
      }
      return done;
    },
    /** Handle what is gathered now; resolves when every batch so far is handled. */
    flush: runNow,
  };
}
