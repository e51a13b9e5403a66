import fs from 'node:fs';
import path from 'node:path';
import type { EnvironmentComponents, VersionResponse } from '@moat/contracts/console';
import type { Database } from '../../db/client.ts';
import type { Engine } from '../../engines/types.ts';
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

export function createServiceStatusService(deps: {
  repo: Pick<ServiceStatusRepo, 'databaseVersion'>;
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

    openIncidents: () => incidents.list(),
    openIncident: incidents.open,
    resolveIncident: incidents.resolve,
  };
}
export type ServiceStatusService = ReturnType<typeof createServiceStatusService>;
