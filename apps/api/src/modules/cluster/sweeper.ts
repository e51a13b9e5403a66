import type { FastifyBaseLogger } from 'fastify';
import { createPeriodic } from '../../lib/periodic.ts';

/**
 * Periodic housekeeping (expired shared counters and the like) that one node does for all: each
 * pass runs under a cluster-wide singleton lock, so nodes never sweep the same rows at once.
 */
export function createSweeper(deps: {
  tasks: Array<{ name: string; run: () => Promise<unknown> }>;
  singleton: (key: string, task: () => Promise<unknown>) => Promise<boolean>;
  log: Pick<FastifyBaseLogger, 'warn'>;
}) {
  async function pass(): Promise<void> {
    for (const task of deps.tasks) {
      await deps
        .singleton(`job:sweep:${task.name}`, task.run)
        .catch((error) => deps.log.warn({ err: error, task: task.name }, 'sweep failed'));
    }
  }
  const periodic = createPeriodic(pass, (error) => deps.log.warn({ err: error }, 'sweep failed'));
  return {
    pass,
    start(intervalMs = 10 * 60_000) {
      periodic.start(intervalMs);
    },
    stop: () => periodic.stop(),
  };
}
export type Sweeper = ReturnType<typeof createSweeper>;
