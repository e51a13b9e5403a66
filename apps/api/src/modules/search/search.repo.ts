import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';
import { saasApps } from '../../db/schema.ts';

/** What each search category is narrowed by; `pattern` is a LIKE pattern (`containsPattern`). */
export interface SearchScope {
  tenantId: string;
  /** The keyword as typed (trimmed): `pattern` is it as a LIKE pattern; its address keys are read from it. */
  keyword: string;
  pattern: string;
  /** The start of the date range: both messages and events older than this are out. */
  since: Date;
  /** Now: the range has no end, but the address keys are asked for up to this week. */
  until: Date;
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

/** A Mail Explorer row: mail the gateway delivered (clean, with a warning, or stripped). */
export interface DeliveredHit {
  id: string;
  subject: string;
  sender: string;
  recipient: string;
  verdict: string;
  action: string;
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

/** A category's rows as its address keys find them (migration 0014). */
interface Keyed {
  table: SQL;
  words: SQL;
  /** Exactly the expression of the key index: the words' keys in the week of the row's date. */
  keys: SQL;
  tenant: SQL;
  date: SQL;
}
const keyed = (table: SQL, words: SQL, tenant: SQL, date: SQL): Keyed => ({
  table,
  words,
  keys: sql`moat_address_keys(${words}, ${date}, ${date})`,
  tenant,
  date,
});
const MESSAGES = keyed(sql`quarantine_messages m`, messageWords, sql`m.tenant_id`, sql`m.received_at`);
const EVENTS = keyed(sql`security_events e`, eventWords, sql`e.tenant_id`, sql`e.created_at`);
/**
 * The rows of `on` that have one of the keyword's address keys of a week from `since` to
 * `until`, or every row if the keyword has none (PostgreSQL folds the constant test away).
 */
const withKeywordKeys = (on: Keyed, { keyword, since, until }: SearchScope) => {
  const keys = sql`moat_address_keys(${keyword}, ${since}, ${until})`;
  return sql`(${on.keys} && ${keys} or cardinality(${keys}) = 0)`;
};

/** A keyword that has an address key: six characters, none an '@', then an '@'. */
const ADDRESS_PART = /[^@]{6}@/u;
/**
 * The most rows (PostgreSQL's estimate) that may have a keyword's address keys in the date range
 * for the key index to be used: the search reads each of them.
 */
export const ADDRESS_KEY_ROWS = 2000;

/**
 * Quick search's queries (SPEC §7). Each asks for the newest `limit` rows per app inside the
 * date range, one app at a time (a LATERAL join over the app names), so the planner can either
 * walk the (tenant, date) index newest first and stop at `limit` hits (a common word), or take
 * the few rows the pg_trgm index finds (a rare one); neither grows with rows outside the range.
 *
 * A piece of an address (`sender123@`) is the exception: its trigrams (`sen`, `end`, …) are in
 * nearly every row, so the trigram index reads long posting lists for it. When the keyword has
 * address keys (six characters and an '@', migration 0014) that few rows of the date range have,
 * the rows are taken from the key index instead (the keys carry the week of the row's date, so
 * it gives only the range's), and the same ilike keeps those that match: the results are the
 * same rows, since a row whose words contain the keyword has every key of the keyword. Whether
 * the keys are rare is PostgreSQL's own estimate (an EXPLAIN, from the key index's statistics);
 * when they are not (`noreply@`), the search is the usual one. `addressKeyRows` sets that limit
 * (tests: 0 never uses the keys, Infinity always does).
 */
export function createSearchRepo(db: DbOrTx, options: { addressKeyRows?: number } = {}) {
  const addressKeyRows = options.addressKeyRows ?? ADDRESS_KEY_ROWS;
  const toRecipient = (column: SQL, recipient: string | null) =>
    recipient === null ? sql`` : sql`and ${column} = ${recipient}`;

  /** The messages and events of one search (the service hands both the same scope) share one estimate. */
  const estimates = new WeakMap<SearchScope, Promise<{ messages: boolean; events: boolean }>>();

  /**
   * Whether the rows of each table are to be found by the keyword's address keys: it has some,
   * and PostgreSQL expects at most `addressKeyRows` rows of the table to have them in the range
   * (one EXPLAIN for both tables).
   */
  function byKeys(scope: SearchScope, tx?: DbOrTx): Promise<{ messages: boolean; events: boolean }> {
    let keyed = estimates.get(scope);
    if (!keyed) {
      keyed = estimate(scope, tx);
      estimates.set(scope, keyed);
    }
    return keyed;
  }

  async function estimate(scope: SearchScope, tx?: DbOrTx) {
    if (addressKeyRows <= 0 || !ADDRESS_PART.test(scope.keyword)) return { messages: false, events: false };
    if (addressKeyRows === Number.POSITIVE_INFINITY) return { messages: true, events: true };
    const result = await (tx ?? db).execute(sql`
      explain (format json)
      select 1 from ${MESSAGES.table} where ${withKeywordKeys(MESSAGES, scope)}
      union all
      select 1 from ${EVENTS.table} where ${withKeywordKeys(EVENTS, scope)}`);
    const plan = rowsOf(result)[0]?.['QUERY PLAN'];
    const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as
      | Array<{ Plan?: { Plans?: Array<{ 'Relation Name'?: string; 'Plan Rows'?: number }> } }>
      | undefined;
    const scans = parsed?.[0]?.Plan?.Plans ?? [];
    const rare = (table: string) => {
      const rows = scans.find((scan) => scan['Relation Name'] === table)?.['Plan Rows'];
      return typeof rows === 'number' && rows <= addressKeyRows;
    };
    return { messages: rare('quarantine_messages'), events: rare('security_events') };
  }

  /**
   * The rows of `on` whose words contain the keyword: by the ilike (the trigram index or a
   * filter), or, `keyed`, the rows that have one of the keyword's keys of the range's weeks (the
   * key index) or a date after `until` (rows no week asked for holds; normally none), and then
   * the same ilike on those. That ilike is written `is true` (the same test) so that the planner
   * does not also scan the trigram index and AND the two bitmaps: it takes that scan for cheap,
   * and it is the slow part.
   */
  const matching = (on: Keyed, keyed: boolean, scope: SearchScope) =>
    keyed
      ? sql`(${withKeywordKeys(on, scope)} or (${on.tenant} = ${scope.tenantId} and ${on.date} > ${scope.until}))
          and (${on.words} ilike ${scope.pattern}) is true`
      : sql`${on.words} ilike ${scope.pattern}`;

  /**
   * The newest `limit` of `rows` (which have an `app` column) per app, by `date`, in one pass:
   * for the few rows the address keys find (the LATERAL form repeats its scans for each app).
   */
  const newestPerApp = (rows: SQL, date: SQL, limit: number) => sql`(
    select * from (
      select *, row_number() over (partition by app order by ${date} desc) as n from (${rows}) found
    ) ranked
    where n <= ${limit})`;

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
      const { tenantId, since, limit, recipient } = scope;
      const keyed = (await byKeys(scope, tx)).messages;
      const held = (app: SQL) => sql`
        select m.id, m.saas_type as app, m.subject, m.sender, m.recipient, m.verdict, m.received_at
        from quarantine_messages m
        where m.tenant_id = ${tenantId}
          and ${app}
          and m.received_at >= ${since}
          and m.state <> 'deleted'
          ${toRecipient(sql`m.recipient`, recipient)}
          and ${matching(MESSAGES, keyed, scope)}`;
      const result = await (tx ?? db).execute(sql`
        select hit.id, hit.app, hit.subject, hit.sender, hit.recipient, hit.verdict
        from ${
          keyed
            ? newestPerApp(held(sql`m.saas_type = any(${textArray(apps)})`), sql`received_at`, limit)
            : sql`unnest(${textArray(apps)}) as a(app)
                cross join lateral (${held(sql`m.saas_type = a.app`)} order by m.received_at desc limit ${limit})`
        } hit
        order by hit.app, hit.received_at desc`);
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
      if (groups.apps.length === 0 && !groups.system) return [];
      const { tenantId, since, limit, recipient } = scope;
      const parts: SQL[] = [];
      const { events: eventsKeyed, messages: messagesKeyed } = await byKeys(scope, tx);
      if (groups.apps.length > 0) {
        const byOwnWords = (app: SQL) => sql`
          select e.id, m.saas_type as app, e.verdict, e.engine, e.description, m.subject, e.created_at
          from security_events e
          join quarantine_messages m on m.id = e.message_id
          where e.tenant_id = ${tenantId}
            and e.created_at >= ${since}
            and ${app}
            ${toRecipient(sql`m.recipient`, recipient)}
            and ${matching(EVENTS, eventsKeyed, scope)}`;
        const byMessageWords = (app: SQL) => sql`
          select e.id, m.saas_type as app, e.verdict, e.engine, e.description, m.subject, e.created_at
          from quarantine_messages m
          join security_events e on e.message_id = m.id
          where m.tenant_id = ${tenantId}
            and ${app}
            and m.received_at >= ${since}
            ${toRecipient(sql`m.recipient`, recipient)}
            and ${matching(MESSAGES, messagesKeyed, scope)}
            and e.tenant_id = ${tenantId}
            and e.created_at >= ${since}`;
        const inApps = sql`m.saas_type = any(${textArray(groups.apps)})`;
        const inApp = sql`m.saas_type = a.app`;
        parts.push(sql`
          select hit.id, hit.app, hit.verdict, hit.engine, hit.description, hit.subject, hit.created_at
          from ${
            eventsKeyed && messagesKeyed
              ? newestPerApp(
                  sql`${byOwnWords(inApps)} union ${byMessageWords(inApps)}`,
                  sql`created_at`,
                  limit,
                )
              : sql`unnest(${textArray(groups.apps)}) as a(app)
                  cross join lateral (
                    select * from (
                      (${byOwnWords(inApp)} order by e.created_at desc limit ${limit})
                      union
                      (${byMessageWords(inApp)} order by e.created_at desc limit ${limit})
                    ) both_arms
                    order by created_at desc
                    limit ${limit}
                  )`
          } hit`);
      }
      if (groups.system) {
        parts.push(sql`
          select * from (
            select e.id, null::text as app, e.verdict, e.engine, e.description, null::text as subject, e.created_at
            from security_events e
            where e.tenant_id = ${tenantId}
              and e.message_id is null
              and e.created_at >= ${since}
              and ${matching(EVENTS, eventsKeyed, scope)}
            order by e.created_at desc
            limit ${limit}
          ) system_events`);
      }
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

    /**
     * Mail the gateway let through (Mail Explorer's rows that were not held: the held ones are
     * found as held messages), received in the range, whose words match; newest first. The words
     * are those of mail_log's trigram index (migration 0007).
     */
    async deliveredMail(scope: SearchScope, tx?: DbOrTx): Promise<DeliveredHit[]> {
      const { tenantId, since, limit, pattern } = scope;
      const result = await (tx ?? db).execute(sql`
        select l.id, l.subject, l.sender, l.recipient, l.verdict, l.action
        from mail_log l
        where l.tenant_id = ${tenantId}
          and l.received_at >= ${since}
          and l.quarantine_message_id is null
          and (l.subject || ' ' || l.sender_name || ' ' || l.sender || ' ' || l.recipient) ilike ${pattern}
        order by l.received_at desc
        limit ${limit}`);
      return rowsOf(result).map((r) => ({
        id: String(r.id),
        subject: String(r.subject),
        sender: String(r.sender),
        recipient: String(r.recipient),
        verdict: String(r.verdict),
        action: String(r.action),
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
