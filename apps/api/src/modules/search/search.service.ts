import { MAIL_LOG_ENTITY, type SearchGroup, type SearchResult } from '@moat/contracts/console';
import { SAAS_APPS } from '@moat/contracts/deployment';
import { VERDICTS, type Verdict } from '@moat/contracts/quarantine';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../lib/clock.ts';
import { containsPattern } from '../../lib/contains-pattern.ts';
import type { RestorePolicy } from '../quarantine/policy.ts';
import type { SearchRepo, SearchScope } from './search.repo.ts';

const DAY_MS = 86_400_000;
const RANGE_DAYS = { day: 1, week: 7, month: 31, year: 366 } as const;
/** The gateway's app: its delivered mail is in Mail Explorer (mail_log). */
const GATEWAY_APP = 'smtp_emails';
/** Results of the console itself (users and policy rules) rather than of a protected app. */
export const PORTAL_GROUP = 'portal';
/** Events not tied to a message of an app (engine and service events). */
export const SYSTEM_GROUP = 'system';

export interface SearchParams {
  keyword: string;
  date_range: keyof typeof RANGE_DAYS;
  saas?: string | undefined;
  category_limit: number;
  nosystem?: '0' | '1' | undefined;
}

const isoOf = (value: Date) => value.toISOString();

/**
 * Quick search (SPEC §7 GET /api/v1/search) over the tenant's quarantined messages, the mail the
 * gateway delivered (admins: Mail Explorer's rows), security events, users and policy rules, all inside the date range. Substring matches use the pg_trgm
 * indexes of migration 0006. Results are grouped by app (one group per SaaS app, plus `portal`
 * for users and rules and `system` for events without a message); each category holds at most
 * `category_limit` items. A category that fails is logged and its group dropped; the others
 * still answer.
 */
export function createSearchService(deps: {
  repo: Pick<SearchRepo, 'enabledApps' | 'messages' | 'deliveredMail' | 'events' | 'users'>;
  /** The tenant's restore policy for a verdict (stored or default). */
  restorePolicyOf: (tenantId: string, verdict: Verdict) => Promise<RestorePolicy>;
  clock: Clock;
  logger: FastifyBaseLogger;
}) {
  const { repo } = deps;

  async function appsOf(tenantId: string, requested: string | undefined): Promise<string[]> {
    const active = await repo.enabledApps(tenantId);
    if (!requested) return active;
    const wanted = new Set(requested.split(',').map((s) => s.trim()));
    return active.filter((name) => wanted.has(name));
  }

  async function messages(scope: SearchScope, apps: string[]) {
    return (await repo.messages(scope, apps)).map((m) => ({
      app: m.app,
      result: {
        name: m.subject || '(no subject)',
        type: 'email',
        entity_type: 'message',
        entity_id: m.id,
        mime: 'message/rfc822',
        description: `${m.sender} → ${m.recipient} · ${m.verdict}`,
      } satisfies SearchResult,
    }));
  }

  /** Mail the gateway delivered, for an admin (Mail Explorer's rows; a result opens the trace). */
  async function delivered(scope: SearchScope, apps: string[]) {
    if (scope.recipient !== null || !apps.includes(GATEWAY_APP)) return [];
    return (await repo.deliveredMail(scope)).map((m) => ({
      app: GATEWAY_APP,
      result: {
        name: m.subject || '(no subject)',
        type: 'email',
        entity_type: MAIL_LOG_ENTITY,
        entity_id: m.id,
        mime: 'message/rfc822',
        description: `${m.sender} → ${m.recipient} · ${m.action.replaceAll('_', ' ')}`,
      } satisfies SearchResult,
    }));
  }

  async function events(scope: SearchScope, apps: string[], system: boolean) {
    return (await repo.events(scope, { apps, system })).map((e) => ({
      app: e.app ?? SYSTEM_GROUP,
      result: {
        name: e.subject ? `${e.verdict}: ${e.subject}` : `${e.verdict}: ${e.description}`,
        type: 'event',
        entity_type: 'event',
        entity_id: e.id,
        mime: null,
        description: `${e.engine} · ${e.description} · ${isoOf(e.createdAt).slice(0, 10)}`,
      } satisfies SearchResult,
    }));
  }

  async function users(tenantId: string, pattern: string, limit: number): Promise<SearchResult[]> {
    return (await repo.users(tenantId, pattern, limit)).map((u) => ({
      name: `${u.firstName} ${u.lastName}`.trim() || u.email,
      type: 'user',
      entity_type: 'user',
      entity_id: u.id,
      mime: null,
      description: `${u.email} · ${u.role}`,
    }));
  }

  /** The tenant's restore-policy rules, one per verdict (stored or default), matched by their words. */
  async function rules(tenantId: string, keyword: string, limit: number): Promise<SearchResult[]> {
    const needle = keyword.toLowerCase();
    const all = await Promise.all(
      VERDICTS.map(async (verdict): Promise<SearchResult> => {
        const policy = await deps.restorePolicyOf(tenantId, verdict);
        return {
          name: `Restore policy: ${verdict}`,
          type: 'rule',
          entity_type: 'rule',
          entity_id: verdict,
          mime: null,
          description: `mode ${policy.mode} · identification ${policy.identificationRequired ? 'required' : 'off'}`,
        };
      }),
    );
    return all.filter((r) => `${r.name} ${r.description}`.toLowerCase().includes(needle)).slice(0, limit);
  }

  return {
    /**
     * `recipient`: a plain user sees only what was sent to them, and no list of people; an admin
     * (null) sees the whole tenant.
     */
    async search(
      tenantId: string,
      params: SearchParams,
      recipient: string | null = null,
    ): Promise<SearchGroup[]> {
      const keyword = params.keyword.trim();
      if (keyword === '') return [];
      const pattern = containsPattern(keyword);
      const until = deps.clock.now();
      const since = new Date(until.getTime() - RANGE_DAYS[params.date_range] * DAY_MS);
      const limit = params.category_limit;
      const apps = await appsOf(tenantId, params.saas);
      const scope: SearchScope = { tenantId, keyword, pattern, since, until, limit, recipient };
      // Events without a message are not sent to anyone, so a plain user never sees them.
      const system = params.nosystem !== '1' && recipient === null;

      const groups = new Map<string, SearchGroup>();
      const groupOf = (app: string) => {
        let group = groups.get(app);
        if (!group) {
          group = { app_name: app, results: [] };
          groups.set(app, group);
        }
        return group;
      };
      const failed = (app: string | null, what: string) => (error: unknown) => {
        deps.logger.error({ err: error, what }, 'quick search category failed');
        if (app) groupOf(app).error = 'Search service error';
        else for (const a of apps) groupOf(a).error = 'Search service error';
        return [];
      };

      const [found, foundDelivered, foundEvents, foundUsers, foundRules] = await Promise.all([
        messages(scope, apps).catch(failed(null, 'messages')),
        delivered(scope, apps).catch(failed(GATEWAY_APP, 'delivered mail')),
        events(scope, apps, system).catch(failed(null, 'events')),
        recipient
          ? Promise.resolve([])
          : users(tenantId, pattern, limit).catch(failed(PORTAL_GROUP, 'users')),
        rules(tenantId, keyword, limit).catch(failed(PORTAL_GROUP, 'rules')),
      ]);
      for (const { app, result } of [...found, ...foundDelivered, ...foundEvents]) {
        groupOf(app).results.push(result);
      }
      for (const result of [...foundUsers, ...foundRules]) groupOf(PORTAL_GROUP).results.push(result);

      const order = (app: string) => {
        const i = (SAAS_APPS as readonly string[]).indexOf(app);
        return i >= 0 ? i : app === PORTAL_GROUP ? 100 : 101;
      };
      return [...groups.values()]
        .filter((g) => !g.error && g.results.length > 0)
        .sort((a, b) => order(a.app_name) - order(b.app_name));
    },
  };
}
export type SearchService = ReturnType<typeof createSearchService>;
