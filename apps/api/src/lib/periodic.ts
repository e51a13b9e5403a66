/**
 * A task run every `intervalMs` in the background, never two passes at once; `stop()` waits for a
 * pass under way. Errors are handed to `onError` (a pass that fails does not stop the next).
 */
export function createPeriodic(task: () => Promise<unknown>, onError: (error: unknown) => void) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  const tick = () => {
    if (running) return;
    running = task()
      .catch(onError)
      .finally(() => {
        running = null;
      });
  };
  return {
    start(intervalMs: number, options: { now?: boolean } = {}) {
      if (timer) return;
      if (options.now) tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
