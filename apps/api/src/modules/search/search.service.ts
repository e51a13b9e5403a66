import type { SearchGroup, SearchResult } from '@moat/contracts/console';
import { SAAS_APPS } from '@moat/contracts/deployment';
import { VERDICTS } from '@moat/contracts/quarantine';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { type Db, rowsOf } from '../../db/client.ts';
import { saasApps } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { restorePolicyOf } from '../quarantine/policy.ts';

const DAY_MS = 86_400_000;
const RANGE_DAYS = { day: 1, week: 7, month: 31, year: 366 } as const;
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

/** `keyword` as a LIKE pattern matching it anywhere, its wildcards taken literally. */
export function containsPattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const isoOf = (value: unknown) => new Date(value as string | Date).toISOString();

/**
 * Quick search (SPEC §7 GET /api/v1/search) over the tenant's quarantined messages, security
 * events, users and policy rules. Substring matches use the pg_trgm indexes of migration 0006.
 * Results are grouped by app (one group per SaaS app, plus `portal` for users and rules and
 * `system` for events without a message); each category holds at most `category_limit` items.
 * A category that fails is logged and its group dropped; the others still answer.
 */
export function createSearchService(deps: { db: Db; clock: Clock; logger: FastifyBaseLogger }) {
  const { db } = deps;

  async function appsOf(tenantId: string, requested: string | undefined): Promise<string[]> {
    const rows = await db
      .select({ name: saasApps.name })
      .from(saasApps)
      .where(and(eq(saasApps.tenantId, tenantId), eq(saasApps.state, 'enabled')));
    const active = rows.map((r) => r.name);
    if (!requested) return active;
    const wanted = new Set(requested.split(',').map((s) => s.trim()));
    return active.filter((name) => wanted.has(name));
  }

  async function messages(
    tenantId: string,
    apps: string[],
    since: Date,
    pattern: string,
    limit: number,
    recipient: string | null,
  ) {
    if (apps.length === 0) return [];
    const result = await db.execute(sql`
      select id, saas_type, subject, sender, recipient, verdict from (
        select m.*, row_number() over (partition by m.saas_type order by m.received_at desc) as n
        from quarantine_messages m
        where m.tenant_id = ${tenantId}
          and m.saas_type in (${sql.join(
            apps.map((a) => sql`${a}`),
            sql`, `,
          )})
          and m.received_at >= ${since}
          and m.state <> 'deleted'
          and (${recipient}::text is null or m.recipient = ${recipient})
          and (m.subject || ' ' || m.sender_name || ' ' || m.sender || ' ' || m.recipient) ilike ${pattern}
      ) ranked where n <= ${limit}
      order by saas_type`);
    return rowsOf(result).map((r) => ({
      app: String(r.saas_type),
      result: {
        name: String(r.subject) || '(no subject)',
        type: 'email',
        entity_type: 'message',
        entity_id: String(r.id),
        mime: 'message/rfc822',
        description: `${String(r.sender)} → ${String(r.recipient)} · ${String(r.verdict)}`,
      } satisfies SearchResult,
    }));
  }

  async function events(
    tenantId: string,
    apps: string[],
    since: Date,
    pattern: string,
    limit: number,
    recipient: string | null,
  ) {
    const result = await db.execute(sql`
      select id, app, verdict, engine, description, subject, created_at from (
        select e.id, coalesce(m.saas_type, ${SYSTEM_GROUP}) as app, e.verdict, e.engine, e.description,
               m.subject, e.created_at,
               row_number() over (partition by coalesce(m.saas_type, ${SYSTEM_GROUP}) order by e.created_at desc) as n
        from security_events e
        left join quarantine_messages m on m.id = e.message_id
        where e.tenant_id = ${tenantId}
          and e.created_at >= ${since}
          and (${recipient}::text is null or m.recipient = ${recipient})
          and e.id in (
            select id from security_events
            where tenant_id = ${tenantId}
              and (engine || ' ' || verdict || ' ' || description) ilike ${pattern}
            union
            select e2.id from quarantine_messages m2
            join security_events e2 on e2.message_id = m2.id
            where m2.tenant_id = ${tenantId}
              and (m2.subject || ' ' || m2.sender_name || ' ' || m2.sender || ' ' || m2.recipient) ilike ${pattern}
          )
      ) ranked where n <= ${limit}`);
    const allowed = new Set([...apps, SYSTEM_GROUP]);
    return rowsOf(result)
      .filter((r) => allowed.has(String(r.app)))
      .map((r) => ({
        app: String(r.app),
        result: {
          name: r.subject
            ? `${String(r.verdict)}: ${String(r.subject)}`
            : `${String(r.verdict)}: ${String(r.description)}`,
          type: 'event',
          entity_type: 'event',
          entity_id: String(r.id),
          mime: null,
          description: `${String(r.engine)} · ${String(r.description)} · ${isoOf(r.created_at).slice(0, 10)}`,
        } satisfies SearchResult,
      }));
  }

  async function users(tenantId: string, pattern: string, limit: number): Promise<SearchResult[]> {
    const result = await db.execute(sql`
      select id, email, first_name, last_name, role from users
      where tenant_id = ${tenantId} and hidden = false
        and (email || ' ' || first_name || ' ' || last_name) ilike ${pattern}
      order by email limit ${limit}`);
    return rowsOf(result).map((r) => ({
      name: `${String(r.first_name)} ${String(r.last_name)}`.trim() || String(r.email),
      type: 'user',
      entity_type: 'user',
      entity_id: String(r.id),
      mime: null,
      description: `${String(r.email)} · ${String(r.role)}`,
    }));
  }

  /** The tenant's restore-policy rules, one per verdict (stored or default), matched by their words. */
  async function rules(tenantId: string, keyword: string, limit: number): Promise<SearchResult[]> {
    const needle = keyword.toLowerCase();
    const all = await Promise.all(
      VERDICTS.map(async (verdict): Promise<SearchResult> => {
        const policy = await restorePolicyOf(db, tenantId, verdict);
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
      const since = new Date(deps.clock.now().getTime() - RANGE_DAYS[params.date_range] * DAY_MS);
      const limit = params.category_limit;
      const apps = await appsOf(tenantId, params.saas);

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

      const [found, foundEvents, foundUsers, foundRules] = await Promise.all([
        messages(tenantId, apps, since, pattern, limit, recipient).catch(failed(null, 'messages')),
        events(tenantId, apps, since, pattern, limit, recipient).catch(failed(null, 'events')),
        recipient
          ? Promise.resolve([])
          : users(tenantId, pattern, limit).catch(failed(PORTAL_GROUP, 'users')),
        rules(tenantId, keyword, limit).catch(failed(PORTAL_GROUP, 'rules')),
      ]);
      for (const { app, result } of [...found, ...foundEvents]) {
        if (app === SYSTEM_GROUP && params.nosystem === '1') continue;
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
