import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';
import { saasApps } from '../../db/schema.ts';

/** What each search category is narrowed by; `pattern` is a LIKE pattern (`containsPattern`). */
export interface SearchScope {
  tenantId: string;
  pattern: string;
  /** The start of the date range: both messages and events older than this are out. */
  since: Date;
  /** At most this many rows per app. */
  limit: number;
  /** A plain user's search covers only mail sent to them; null (an admin) the tenant's. */
  recipient: string | null;
}

export interface MessageHit {
  id: string;
  app: string;
  subject: string;
  sender: string;
  recipient: string;
  verdict: string;
}

export interface EventHit {
  id: string;
  /** The app of the event's message; null for an event without one (engine and service events). */
  app: string | null;
  verdict: string;
  engine: string;
  description: string;
  /** The subject of the event's message; null for an event without one. */
  subject: string | null;
  createdAt: Date;
}

const textArray = (values: string[]) =>
  sql`array[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[]`;

// The words a person remembers of a message or an event: these expressions are exactly those of
// the pg_trgm indexes of migration 0006, so an ilike on them can use the index.
const messageWords = sql`(m.subject || ' ' || m.sender_name || ' ' || m.sender || ' ' || m.recipient)`;
const eventWords = sql`(e.engine || ' ' || e.verdict || ' ' || e.description)`;

/**
 * Quick search's queries (SPEC §7). Each asks for the newest `limit` rows per app inside the
 * date range, one app at a time (a LATERAL join over the app names), so the planner can either
 * walk the (tenant, date) index newest first and stop at `limit` hits (a common word), or take
 * the few rows the pg_trgm index finds (a rare one); neither grows with rows outside the range.
 */
export function createSearchRepo(db: DbOrTx) {
  const toRecipient = (column: SQL, recipient: string | null) =>
    recipient === null ? sql`` : sql`and ${column} = ${recipient}`;

  return {
    /** The tenant's enabled SaaS apps. */
    async enabledApps(tenantId: string, tx?: DbOrTx): Promise<string[]> {
      const rows = await (tx ?? db)
        .select({ name: saasApps.name })
        .from(saasApps)
        .where(and(eq(saasApps.tenantId, tenantId), eq(saasApps.state, 'enabled')));
      return rows.map((r) => r.name);
    },

    /** Held messages (not deleted) of these apps received in the range whose words match. */
    async messages(scope: SearchScope, apps: string[], tx?: DbOrTx): Promise<MessageHit[]> {
      if (apps.length === 0) return [];
      const { tenantId, pattern, since, limit, recipient } = scope;
      const result = await (tx ?? db).execute(sql`
        select hit.id, a.app, hit.subject, hit.sender, hit.recipient, hit.verdict
        from unnest(${textArray(apps)}) as a(app)
        cross join lateral (
          select m.id, m.subject, m.sender, m.recipient, m.verdict, m.received_at
          from quarantine_messages m
          where m.tenant_id = ${tenantId}
            and m.saas_type = a.app
            and m.received_at >= ${since}
            and m.state <> 'deleted'
            ${toRecipient(sql`m.recipient`, recipient)}
            and ${messageWords} ilike ${pattern}
          order by m.received_at desc
          limit ${limit}
        ) hit
        order by a.app, hit.received_at desc`);
      return rowsOf(result).map((r) => ({
        id: String(r.id),
        app: String(r.app),
        subject: String(r.subject),
        sender: String(r.sender),
        recipient: String(r.recipient),
        verdict: String(r.verdict),
      }));
    },

    /**
     * Security events created in the range, per app of their message (and, when `system`, the
     * events without a message), found by their own words or by their message's. An event is
     * found by its message's words only when that message was received in the range too: that
     * bound is what keeps a common word from joining every message ever held to its events.
     */
    async events(
      scope: SearchScope,
      groups: { apps: string[]; system: boolean },
      tx?: DbOrTx,
    ): Promise<EventHit[]> {
      const { tenantId, pattern, since, limit, recipient } = scope;
      const parts: SQL[] = [];
      if (groups.apps.length > 0) {
        parts.push(sql`
          select hit.id, a.app, hit.verdict, hit.engine, hit.description, hit.subject, hit.created_at
          from unnest(${textArray(groups.apps)}) as a(app)
          cross join lateral (
            select * from (
              (select e.id, e.verdict, e.engine, e.description, m.subject, e.created_at
                from security_events e
                join quarantine_messages m on m.id = e.message_id
                where e.tenant_id = ${tenantId}
                  and e.created_at >= ${since}
                  and m.saas_type = a.app
                  ${toRecipient(sql`m.recipient`, recipient)}
                  and ${eventWords} ilike ${pattern}
                order by e.created_at desc
                limit ${limit})
              union
              (select e.id, e.verdict, e.engine, e.description, m.subject, e.created_at
                from quarantine_messages m
                join security_events e on e.message_id = m.id
                where m.tenant_id = ${tenantId}
                  and m.saas_type = a.app
                  and m.received_at >= ${since}
                  ${toRecipient(sql`m.recipient`, recipient)}
                  and ${messageWords} ilike ${pattern}
                  and e.tenant_id = ${tenantId}
                  and e.created_at >= ${since}
                order by e.created_at desc
                limit ${limit})
            ) both_arms
            order by created_at desc
            limit ${limit}
          ) hit`);
      }
      if (groups.system) {
        parts.push(sql`
          select * from (
            select e.id, null::text as app, e.verdict, e.engine, e.description, null::text as subject, e.created_at
            from security_events e
            where e.tenant_id = ${tenantId}
              and e.message_id is null
              and e.created_at >= ${since}
              and ${eventWords} ilike ${pattern}
            order by e.created_at desc
            limit ${limit}
          ) system_events`);
      }
      if (parts.length === 0) return [];
      const result = await (tx ?? db).execute(
        sql`select * from (${sql.join(parts, sql` union all `)}) found order by created_at desc`,
      );
      return rowsOf(result).map((r) => ({
        id: String(r.id),
        app: r.app === null ? null : String(r.app),
        verdict: String(r.verdict),
        engine: String(r.engine),
        description: String(r.description),
        subject: r.subject === null || r.subject === undefined ? null : String(r.subject),
        createdAt: new Date(r.created_at as string | Date),
      }));
    },

    /** The tenant's people who are not hidden, by email or name. */
    async users(tenantId: string, pattern: string, limit: number, tx?: DbOrTx) {
      const result = await (tx ?? db).execute(sql`
        select id, email, first_name, last_name, role from users
        where tenant_id = ${tenantId} and hidden = false
          and (email || ' ' || first_name || ' ' || last_name) ilike ${pattern}
        order by email limit ${limit}`);
      return rowsOf(result).map((r) => ({
        id: String(r.id),
        email: String(r.email),
        firstName: String(r.first_name),
        lastName: String(r.last_name),
        role: String(r.role),
      }));
    },
  };
}
export type SearchRepo = ReturnType<typeof createSearchRepo>;
