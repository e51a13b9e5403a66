import type { FieldError } from '@moat/contracts/errors';
import {
  type createExceptionBodySchema,
  EXCEPTION_COMMENT_MAX,
  EXCEPTION_CSV_HEADER,
  EXCEPTION_IMPORT_MAX_ROWS,
  EXCEPTION_IP_RANGES_MAX,
  EXCEPTION_KINDS,
  EXCEPTION_LISTS,
  EXCEPTION_SCOPES,
  type ExceptionEntry,
  type ExceptionKind,
  type ExceptionListResponse,
  type exceptionQuerySchema,
  normalizeExceptionValue,
} from '@moat/contracts/exceptions';
import { CSV_EXPORT_MAX_ROWS } from '@moat/contracts/list';
import { noNul } from '@moat/contracts/validation';
import type { z } from 'zod';
import { AppError, badRequest, notFound } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { type CsvColumn, toCsv, uninertCell } from '../../lib/csv.ts';
import { isOwnDomain } from '../../lib/own-domain.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { ExceptionFilter, ExceptionRow, ExceptionsRepo, NewException } from './exceptions.repo.ts';

type Query = z.output<typeof exceptionQuerySchema>;
type CreateBody = z.output<typeof createExceptionBodySchema>;

const CSV_COLUMNS: CsvColumn<ExceptionEntry>[] = EXCEPTION_CSV_HEADER.map((header) => ({
  header,
  value: (e: ExceptionEntry) => (e as Record<string, string | null | boolean>)[header] as string | null,
}));

/**
 * RFC 4180 rows of a CSV text (quoted fields with "" and line breaks inside, CRLF or LF, a byte
 * order mark ignored). Blank lines are skipped.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRow = () => {
    row.push(field);
    if (row.length > 1 || row[0] !== '') rows.push(row);
    row = [];
    field = '';
  };
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
    } else field += c;
  }
  if (field !== '' || row.length > 0) endRow();
  return rows;
}

/**
 * Security Settings → Exceptions (SPEC §2.4): a tenant's allow and block entries. Every write is
 * audited; the gateway's per-node caches forget the lists at every write (the table's change
 * notice, migration 0011).
 */
export function createExceptionsService(deps: {
  repo: Pick<ExceptionsRepo, 'page' | 'existing' | 'insertAll' | 'remove' | 'countOfKind'>;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
  /** The tenant's own mail domains: never blocked as a sender (a spoofed From would block the real one). */
  ownDomains: (tenantId: string) => Promise<string[]>;
  /** A host or URL was blocked: click-time protection tells who clicked through to it before. */
  linkBlocked?: (tenantId: string, kind: 'domain' | 'url', value: string) => Promise<void>;
  /** New block entries: delivered mail they would have blocked is retracted (in the background). */
  blocked?: (
    tenantId: string,
    entries: Array<{ id: string; list: string; kind: string; value: string; scope?: string }>,
    actor: Actor,
  ) => Promise<void>;
}) {
  const { repo, audit, clock } = deps;

  function entryOf(r: ExceptionRow, now: Date): ExceptionEntry {
    return {
      id: r.id,
      list: r.list,
      kind: r.kind,
      scope: r.scope,
      value: r.value,
      comment: r.comment,
      created_by: r.createdBy,
      created_at: r.createdAt.toISOString(),
      expires_at: r.expiresAt ? r.expiresAt.toISOString() : null,
      expired: r.expiresAt !== null && r.expiresAt.getTime() <= now.getTime(),
    };
  }

  function filterOf(query: Query, now: Date): ExceptionFilter {
    return {
      list: query.list,
      kind: query.kind,
      scope: query.scope,
      q: query.q,
      from: query.from ? new Date(query.from) : undefined,
      to: query.to ? new Date(query.to) : undefined,
      liveAt: query.include_expired === 'true' ? undefined : now,
    };
  }

  /** One entry checked and normalised, or the reasons it cannot be one (field, message). */
  function check(
    input: {
      list: string;
      kind: string;
      scope: string;
      value: string;
      comment: string;
      expires_at: string | null;
    },
    now: Date,
    own: readonly string[],
  ): { ok: true; entry: Omit<NewException, 'createdBy'> } | { ok: false; errors: FieldError[] } {
    const errors: FieldError[] = [];
    const oneOf = <T extends string>(field: string, value: string, values: readonly T[]): T | null => {
      if ((values as readonly string[]).includes(value)) return value as T;
      errors.push({ field, message: `must be one of ${values.join(', ')}` });
      return null;
    };
    const list = oneOf('list', input.list, EXCEPTION_LISTS);
    const kind = oneOf('kind', input.kind, EXCEPTION_KINDS);
    const scope = oneOf('scope', input.scope || 'all', EXCEPTION_SCOPES);
    let value = '';
    if (kind) {
      const checked = normalizeExceptionValue(kind, input.value);
      if (checked.ok) value = checked.value;
      else errors.push({ field: 'value', message: checked.message });
    }
    const comment = input.comment.trim();
    if (comment.length > EXCEPTION_COMMENT_MAX || !noNul(comment)) {
      errors.push({ field: 'comment', message: `must be at most ${EXCEPTION_COMMENT_MAX} characters` });
    }
    let expiresAt: Date | null = null;
    if (input.expires_at) {
      expiresAt = new Date(input.expires_at);
      if (Number.isNaN(expiresAt.getTime())) {
        errors.push({ field: 'expires_at', message: 'must be a date and time (ISO 8601)' });
      } else if (expiresAt.getTime() <= now.getTime()) {
        errors.push({ field: 'expires_at', message: 'must be in the future' });
      }
    }
    // Only a sender or domain allow entry lets a message through; an allowed link, file or IP range
    // would excuse everything else an attacker puts beside it (gateway policy.ts decidingException).
    // Click-Time's entries are about links only: an allowed host or URL is never rewritten, and
    // excuses no message (the gateway leaves that page's entries to click-time protection).
    const linkEntry = scope === 'click_time' && (kind === 'domain' || kind === 'url');
    if (scope === 'click_time' && kind && !linkEntry) {
      errors.push({ field: 'kind', message: 'a Click-Time entry is a domain (a site) or a URL' });
    } else if (list === 'allow' && kind && kind !== 'sender' && kind !== 'domain' && !linkEntry) {
      errors.push({
        field: 'kind',
        message:
          'an allow entry is for a sender address or a domain; links, files and IP ranges can only be blocked',
      });
    }
    // DLP's entries are about the tenant's outbound mail: a sender of its own is what they name
    // (an allowed payroll mailbox, a blocked compromised account), and a recipient anywhere.
    if (scope === 'dlp' && kind && kind !== 'sender' && kind !== 'domain') {
      errors.push({
        field: 'kind',
        message: 'a DLP entry is an address (a sender or a recipient) or a domain',
      });
    }
    if (
      list === 'block' &&
      scope !== 'dlp' &&
      (kind === 'sender' || kind === 'domain') &&
      value &&
      isOwnDomain(value, own)
    ) {
      errors.push({ field: 'value', message: "must not be one of your organisation's own domains" });
    }
    if (errors.length > 0 || !list || !kind || !scope) return { ok: false, errors };
    return { ok: true, entry: { list, kind, scope, value, comment, expiresAt } };
  }

  const createdByOf = (actor: Actor) => (actor.type === 'cli' ? 'cli' : (actor.email ?? actor.type));

  /** Refuses values already on their list (one entry per list and value, whatever its page). */
  /** 409 when the entries would take the tenant past EXCEPTION_IP_RANGES_MAX IP ranges; nothing is added. */
  async function refuseTooManyRanges(tenantId: string, entries: ReadonlyArray<{ kind: ExceptionKind }>) {
    const adding = entries.filter((e) => e.kind === 'ip_range').length;
    if (adding === 0) return;
    const have = await repo.countOfKind(tenantId, 'ip_range');
    if (have + adding > EXCEPTION_IP_RANGES_MAX) {
      throw new AppError(
        'conflict',
        `At most ${EXCEPTION_IP_RANGES_MAX.toLocaleString('en')} IP ranges per organisation: there are ${have}, this would add ${adding}. Remove some first, or use wider ranges.`,
      );
    }
  }

  async function refuseListed(
    tenantId: string,
    entries: Array<{ list: NewException['list']; value: string }>,
  ) {
    const taken = await repo.existing(tenantId, entries);
    return taken.map(
      (t) => `${t.value} is on the ${t.list} list already (${t.scope.replace('_', '-')} page)`,
    );
  }

  return {
    async list(tenantId: string, query: Query): Promise<ExceptionListResponse> {
      const now = clock.now();
      const { total, rows } = await repo.page(tenantId, filterOf(query, now), query);
      return { total, items: rows.map((r) => entryOf(r, now)) };
    },

    async exportCsv(tenantId: string, query: Query): Promise<string> {
      const now = clock.now();
      const { rows } = await repo.page(tenantId, filterOf(query, now), {
        ...query,
        limit: CSV_EXPORT_MAX_ROWS,
        offset: 0,
      });
      return toCsv(
        CSV_COLUMNS,
        rows.map((r) => entryOf(r, now)),
      );
    },

    async create(tenantId: string, body: CreateBody, actor: Actor): Promise<ExceptionEntry> {
      const now = clock.now();
      const checked = check(
        { ...body, expires_at: body.expires_at ?? null },
        now,
        await deps.ownDomains(tenantId),
      );
      if (!checked.ok) {
        throw badRequest(
          checked.errors.map((e) => e.message).join('; '),
          checked.errors.map((e) => ({ ...e, field: `body.${e.field}` })),
        );
      }
      const [taken] = await refuseListed(tenantId, [checked.entry]);
      if (taken) throw new AppError('conflict', taken);
      await refuseTooManyRanges(tenantId, [checked.entry]);
      const rows = await repo.insertAll(tenantId, [{ ...checked.entry, createdBy: createdByOf(actor) }]);
      const row = rows?.[0];
      if (!row)
        throw new AppError('conflict', `${checked.entry.value} is on the ${checked.entry.list} list already`);
      await audit.record(actor, {
        tenantId,
        action: 'exception.create',
        targetType: 'exception',
        targetId: row.id,
        details: {
          list: row.list,
          kind: row.kind,
          scope: row.scope,
          value: row.value,
          expires_at: row.expiresAt?.toISOString() ?? null,
        },
      });
      if (row.list === 'block' && (row.kind === 'domain' || row.kind === 'url'))
        await deps.linkBlocked?.(tenantId, row.kind, row.value);
      await deps.blocked?.(tenantId, [row], actor);
      return entryOf(row, now);
    },

    async remove(tenantId: string, id: string, actor: Actor): Promise<void> {
      const row = await repo.remove(tenantId, id);
      if (!row) throw notFound('No such exception');
      await audit.record(actor, {
        tenantId,
        action: 'exception.delete',
        targetType: 'exception',
        targetId: id,
        details: { list: row.list, kind: row.kind, scope: row.scope, value: row.value },
      });
    },

    /**
     * A CSV file of entries (the export's columns; created_by and created_at are ignored: the
     * importer is who added them). Every row is checked and every bad row reported, by its line
     * number; nothing is imported unless every row is good.
     */
    async importCsv(tenantId: string, csv: string, actor: Actor): Promise<{ imported: number }> {
      const now = clock.now();
      const [header, ...rows] = parseCsv(csv);
      const columns = (header ?? []).map((h) => h.trim().toLowerCase());
      const missing = ['list', 'kind', 'value'].filter((c) => !columns.includes(c));
      if (!header || missing.length > 0) {
        throw badRequest(`The first line must name the columns: ${EXCEPTION_CSV_HEADER.join(',')}`, [
          { field: 'line 1', message: `missing column ${missing.join(', ') || 'list, kind, value'}` },
        ]);
      }
      if (rows.length === 0)
        throw badRequest('The file has no entries', [{ field: 'line 2', message: 'no rows' }]);
      if (rows.length > EXCEPTION_IMPORT_MAX_ROWS) {
        throw badRequest(`At most ${EXCEPTION_IMPORT_MAX_ROWS} entries per file`);
      }
      const cell = (row: string[], name: string) => {
        const at = columns.indexOf(name);
        return at < 0 ? '' : uninertCell(row[at] ?? '').trim();
      };
      const own = await deps.ownDomains(tenantId);
      const errors: FieldError[] = [];
      const entries: NewException[] = [];
      const seen = new Map<string, number>();
      rows.forEach((row, index) => {
        const line = `line ${index + 2}`;
        const checked = check(
          {
            list: cell(row, 'list').toLowerCase(),
            kind: cell(row, 'kind').toLowerCase(),
            scope: cell(row, 'scope').toLowerCase(),
            value: cell(row, 'value'),
            comment: cell(row, 'comment'),
            expires_at: cell(row, 'expires_at') || null,
          },
          now,
          own,
        );
        if (!checked.ok) {
          for (const e of checked.errors) errors.push({ field: line, message: `${e.field} ${e.message}` });
          return;
        }
        const key = `${checked.entry.list}\n${checked.entry.value}`;
        const first = seen.get(key);
        if (first !== undefined) {
          errors.push({ field: line, message: `value ${checked.entry.value} repeats line ${first}` });
          return;
        }
        seen.set(key, index + 2);
        entries.push({ ...checked.entry, createdBy: createdByOf(actor) });
      });
      if (errors.length === 0) {
        const taken = await repo.existing(tenantId, entries);
        for (const t of taken) {
          errors.push({
            field: `line ${seen.get(`${t.list}\n${t.value}`)}`,
            message: `value ${t.value} is on the ${t.list} list already`,
          });
        }
      }
      if (errors.length > 0) {
        throw badRequest(
          `Nothing was imported: ${errors.length} problem${errors.length === 1 ? '' : 's'} in the file`,
          errors,
        );
      }
      await refuseTooManyRanges(tenantId, entries);
      const inserted = await repo.insertAll(tenantId, entries);
      if (!inserted)
        throw new AppError('conflict', 'Nothing was imported: an entry was added meanwhile; try again');
      await audit.record(actor, {
        tenantId,
        action: 'exception.import',
        targetType: 'tenant',
        targetId: tenantId,
        details: { imported: inserted.length },
      });
      await deps.blocked?.(tenantId, inserted, actor);
      return { imported: inserted.length };
    },
  };
}
export type ExceptionsService = ReturnType<typeof createExceptionsService>;
