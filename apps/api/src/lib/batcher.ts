/**
 * Items handled together (one statement for many rows). With `waitMs` > 0 a batch gathers for
 * `waitMs` after its first item; with 0 it starts at once when no batch is running, and otherwise
 * gathers until the running one ends (no added wait when idle, bigger batches under load).
 * `add` resolves with the item's result (`run` answers in the order of its items), or rejects with
 * the batch's error; batches run one at a time, in order. With `alone`, a batch that failed is
 * run again one item at a time, so an item that cannot be handled fails only itself. With
 * `maxWeight`, a batch stops short of it (big rows go in several statements).
 */
export function createBatcher<T, R = void>(options: {
  waitMs: number;
  run: (items: T[]) => Promise<R[]>;
  alone?: boolean;
  /** A batch holds items up to this total `weight` (at least one item); the rest go in the next. */
  maxWeight?: number;
  weight?: (item: T) => number;
}) {
  let items: T[] = [];
  let waiters: Array<{ resolve: (result: R) => void; reject: (error: unknown) => void }> = [];
  let timer: NodeJS.Timeout | null = null;
  let chain: Promise<void> = Promise.resolve();
  /** A batch is running (or about to start): with `waitMs` 0, new items wait for it. */
  let running = false;

  function runNow(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    let count = items.length;
    if (options.maxWeight !== undefined && options.weight) {
      let total = 0;
      count = 0;
      while (
        count < items.length &&
        (count === 0 || total + options.weight(items[count]!) <= options.maxWeight)
      ) {
        total += options.weight(items[count]!);
        count += 1;
      }
    }
    const batch = items.slice(0, count);
    const told = waiters.slice(0, count);
    items = items.slice(count);
    waiters = waiters.slice(count);
    if (items.length > 0 && options.waitMs > 0 && !timer) {
      // What did not fit goes next.
      timer = setTimeout(runNow, 0);
      timer.unref();
    }
    if (batch.length === 0) {
      running = false;
      return chain;
    }
    running = true;
    const settle = (w: (typeof told)[number], run: Promise<R[]>) =>
      run.then(
        (results) => w.resolve(results[0] as R),
        (error) => w.reject(error),
      );
    chain = chain.then(() =>
      options.run(batch).then(
        (results) => {
          for (const [i, w] of told.entries()) w.resolve(results[i] as R);
        },
        async (error) => {
          if (!options.alone || batch.length === 1) {
            for (const w of told) w.reject(error);
            return;
          }
          for (const [i, w] of told.entries()) await settle(w, options.run([batch[i]!]));
        },
      ),
    );
    if (options.waitMs === 0) {
      void chain.then(() => {
        // What gathered meanwhile is the next batch; none: idle again.
        void runNow();
      });
    }
    return chain;
  }

  return {
    add(item: T): Promise<R> {
      items.push(item);
      const done = new Promise<R>((resolve, reject) => waiters.push({ resolve, reject }));
      if (options.waitMs === 0) {
        if (!running) {
          running = true;
          // Items added in this same turn join the batch.
          setImmediate(runNow);
        }
      } else if (!timer) {
        timer = setTimeout(runNow, options.waitMs);
        timer.unref();
      }
      return done;
    },
    /** Handle what is gathered now; resolves when every batch so far is handled. */
    flush: runNow,
  };
}
