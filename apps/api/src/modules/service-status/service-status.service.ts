import fs from 'node:fs';
import path from 'node:path';
import type {
  EnvironmentComponents,
  Queues,
  ServiceStatus,
  SystemTasks,
  VersionResponse,
} from '@moat/contracts/console';
import type { Database } from '../../db/client.ts';
import type { Engine } from '../../engines/types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { IncidentsRepo } from './incidents.repo.ts';
import type { ServiceStatusRepo } from './service-status.repo.ts';

/** The id of the web build being served: `version.json`, written by the web build next to index.html. */
export function createWebBuildVersion(distDir: string) {
  const file = path.join(distDir, 'version.json');
  let cached: { mtimeMs: number; version: string } | null = null;
  return (): string => {
    try {
      const { mtimeMs } = fs.statSync(file);
      if (cached?.mtimeMs !== mtimeMs) {
        const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { ui2_version?: unknown };
        cached = {
          mtimeMs,
          version: typeof parsed.ui2_version === 'string' ? parsed.ui2_version : 'unknown',
        };
      }
      return cached.version;
    } catch {
      return 'unknown';
    }
  };
}

/** The background tasks System Tasks lists: their lock key and how often they run. */
export const SYSTEM_TASKS = [
  { name: 'digest', key: 'job:digest', everyMinutes: 60 },
  { name: 'quarantine-purge', key: 'job:sweep:quarantine-purge', everyMinutes: 10 },
  { name: 'counters', key: 'job:sweep:counters', everyMinutes: 10 },
] as const;

const DAY_MS = 86_400_000;

/**
 * Runs `task` under the cluster lock `key` and records the run for System Tasks: who ran it,
 * when, how it ended and what it did (a count it returns). A task whose lock another node holds
 * is not run here, and not recorded.
 */
export function recordedTasks(deps: {
  repo: Pick<ServiceStatusRepo, 'startRun' | 'finishRun'>;
  tryLock: (key: string, task: () => Promise<unknown>) => Promise<boolean>;
  clock: Clock;
  node: string;
}) {
  return (key: string, task: () => Promise<unknown>) =>
    deps.tryLock(key, async () => {
      const name = SYSTEM_TASKS.find((t) => t.key === key)?.name ?? key;
      const id = await deps.repo.startRun(name, deps.node, deps.clock.now());
      try {
        const result = await task();
        const detail = typeof result === 'number' ? `${result} done` : null;
        await deps.repo.finishRun(id, deps.clock.now(), 'ok', detail);
        return result;
      } catch (error) {
        await deps.repo.finishRun(id, deps.clock.now(), 'failed', (error as Error).message);
        throw error;
      }
    });
}

export function createServiceStatusService(deps: {
  repo: Pick<ServiceStatusRepo, 'databaseVersion' | 'queues' | 'lastRelayError' | 'runsOf'>;
  clock: Clock;
  incidents: Pick<IncidentsRepo, 'list' | 'open' | 'resolve'>;
  databaseKind: Database['kind'];
  serverVersion: string;
  webDistDir: string;
  smtpRelayUrl: string | undefined;
  engines: Engine[];
}) {
  const { incidents } = deps;
  const webVersion = createWebBuildVersion(deps.webDistDir);
  let databaseVersion: string | null = null;

  return {
    version(): VersionResponse {
      return { version_info: { ui2_version: webVersion(), flask_version: deps.serverVersion } };
    },

    /** What runs this service, with versions: read from the running pieces, not declared. */
    async environmentComponents(): Promise<EnvironmentComponents> {
      databaseVersion ??= await deps.repo.databaseVersion();
      const embedded = deps.databaseKind === 'pglite';
      return {
        services: [
          { name: 'Moat API', version: deps.serverVersion, status: 'on' },
          { name: 'Web console', version: webVersion(), status: 'on' },
          {
            name: embedded ? 'PostgreSQL (embedded PGlite)' : 'PostgreSQL',
            version: databaseVersion,
            status: 'on',
          },
          { name: 'Node.js', version: process.versions.node, status: 'on' },
          deps.smtpRelayUrl
            ? { name: 'Outbound mail relay', version: 'SMTP', status: 'on' }
            : {
                name: 'Outbound mail relay',
                version: 'SMTP',
                status: 'off',
                detail: 'SMTP_RELAY_URL is not set: mail is kept in the outbox',
              },
        ],
        engines: deps.engines.map((engine) => ({
          name: engine.name,
          version: engine.version,
          status: engine.status,
          ...(engine.detail ? { detail: engine.detail } : {}),
        })),
      };
    },

    async queues(tenantId: string): Promise<Queues> {
      const q = await deps.repo.queues(tenantId, new Date(deps.clock.now().getTime() - DAY_MS));
      return {
        inbound_waiting: q.inboundWaiting,
        inbound_failed: q.inboundFailed,
        outbox_waiting: q.outboxWaiting,
        outbox_failed_24h: q.outboxFailed,
        oldest_waiting_at: q.oldestWaitingAt?.toISOString() ?? null,
      };
    },

    /** Service Status: what runs, open incidents, queues and the relay; its last error to admins only. */
    async status(tenantId: string, isAdmin: boolean): Promise<ServiceStatus> {
      const [components, open, queues, relayError] = await Promise.all([
        this.environmentComponents(),
        incidents.list(),
        this.queues(tenantId),
        isAdmin ? deps.repo.lastRelayError(tenantId) : Promise.resolve(null),
      ]);
      return {
        ...components,
        incidents: open,
        queues,
        relay: {
          configured: Boolean(deps.smtpRelayUrl),
          last_error: relayError?.error ?? null,
          last_error_at: relayError?.at.toISOString() ?? null,
        },
      };
    },

    /** System Tasks: each background task's latest run and its last day, and the queues. */
    async systemTasks(tenantId: string): Promise<SystemTasks> {
      const now = deps.clock.now();
      const runs = await deps.repo.runsOf(
        SYSTEM_TASKS.map((t) => t.name),
        new Date(now.getTime() - DAY_MS),
      );
      const tasks = SYSTEM_TASKS.map((task) => {
        const r = runs.find((x) => x.name === task.name);
        const last = r?.latest ?? null;
        return {
          name: task.name,
          every_minutes: task.everyMinutes,
          // A run without an end is running, unless it is older than a period (its node died).
          running: Boolean(
            last && !last.finishedAt && now.getTime() - last.startedAt.getTime() < task.everyMinutes * 60_000,
          ),
          last_run: last && {
            node: last.node,
            started_at: last.startedAt.toISOString(),
            finished_at: last.finishedAt?.toISOString() ?? null,
            outcome: (last.outcome as 'ok' | 'failed' | null) ?? null,
            detail: last.detail,
          },
          runs_24h: r?.runs ?? 0,
          failures_24h: r?.failures ?? 0,
        };
      });
      return { tasks, queues: await this.queues(tenantId) };
    },

    openIncidents: () => incidents.list(),
    openIncident: incidents.open,
    resolveIncident: incidents.resolve,
  };
}
export type ServiceStatusService = ReturnType<typeof createServiceStatusService>;
