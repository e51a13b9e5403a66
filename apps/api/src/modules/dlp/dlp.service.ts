import {
  DLP_ACTION_ORDER,
  DLP_CUSTOM_RULES_MAX,
  DLP_DATA_TYPES,
  type DlpAction,
  type DlpCustomRule,
  type DlpCustomRuleInput,
  type DlpDataType,
  type DlpDataTypeSetting,
  type DlpDataTypeUpdate,
  type DlpHit,
  type DlpSettings,
} from '@moat/contracts/dlp';
import {
  type CompiledDlp,
  checkDlpPattern,
  compileDlpRules,
  type DlpContent,
  findDlp,
} from '../../engines/dlp/index.ts';
import { badRequest, notFound } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Caches } from '../../lib/cache.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ExceptionMatch } from '../../mail/gateway/gateway-policy.repo.ts';
import { senderKeys } from '../../mail/gateway/policy.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { DlpCustomRuleRow, DlpRepo } from './dlp.repo.ts';

/**
 * The settings of a type the tenant has not changed. Secrets and identifiers that are rarely
 * sent on purpose are held for review; the rest is delivered with an alert, so turning Moat on
 * never stops ordinary mail unannounced. Files that are whole mailboxes, password vaults,
 * certificates with their keys or database dumps are named by type.
 */
const DEFAULTS: Record<DlpDataType, Omit<DlpDataTypeSetting, 'type'>> = {
  payment_card: { enabled: true, action: 'hold', threshold: 1, fileTypes: [] },
  iban: { enabled: true, action: 'notify', threshold: 1, fileTypes: [] },
  // Part and reference numbers share the SSN's 3-2-4 shape: alerted, not held, by default.
  us_ssn: { enabled: true, action: 'notify', threshold: 1, fileTypes: [] },
  uk_nino: { enabled: true, action: 'notify', threshold: 1, fileTypes: [] },
  ca_sin: { enabled: true, action: 'notify', threshold: 1, fileTypes: [] },
  es_dni: { enabled: true, action: 'notify', threshold: 1, fileTypes: [] },
  fr_nir: { enabled: true, action: 'notify', threshold: 1, fileTypes: [] },
  api_key: { enabled: true, action: 'hold', threshold: 1, fileTypes: [] },
  private_key: { enabled: true, action: 'hold', threshold: 1, fileTypes: [] },
  file_type: {
    enabled: true,
    action: 'notify',
    threshold: 1,
    fileTypes: ['pst', 'ost', 'kdbx', 'pfx', 'p12', 'sql', 'bak', 'mdb', 'accdb'],
  },
  encrypted_file: { enabled: true, action: 'notify', threshold: 1, fileTypes: [] },
};

/** Compiled rules and exception entries are kept this long at most (a change is announced to every node). */
const CACHE_TTL_MS = 60_000;

interface TenantRules {
  compiled: CompiledDlp;
  actionOf: Map<string, DlpAction>;
  any: boolean;
}

/** What DLP decided for a message: its hits, the strictest action, or why it was not checked. */
export interface DlpDecision {
  hits: DlpHit[];
  action: DlpAction | null;
  /** A DLP exception that let it pass unchecked (allow) or refuses it (block). */
  exception: { list: 'allow' | 'block'; entry: ExceptionMatch } | null;
}

const fileTypeOf = (raw: string) => raw.trim().toLowerCase().replace(/^\.+/, '');

function customView(row: DlpCustomRuleRow): DlpCustomRule {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    keywords: row.keywords,
    pattern: row.pattern,
    enabled: row.enabled,
    action: row.action,
    threshold: row.threshold,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * DLP for outbound mail (issue 38): each data type's action and threshold, the tenant's custom
 * rules, and the check of a message: its hits (matched data masked) and the strictest action.
 * DLP exceptions are the `dlp` entries of Security Settings → Exceptions: an allowed sender,
 * recipient or domain is not checked; a blocked one is refused.
 */
export function createDlpService(deps: {
  repo: DlpRepo;
  /** The tenant's exception entries among these values (the gateway's reader, outbound scope). */
  exceptionsAmong: (tenantId: string, values: string[]) => Promise<ExceptionMatch[]>;
  /** The security tools the tenant turned off (Security Engines): DLP among them checks nothing. */
  disabledToolsOf: (tenantId: string) => Promise<string[]>;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
  caches: Pick<Caches, 'create'>;
}) {
  const { repo, clock } = deps;
  const rulesCache = deps.caches.create<TenantRules>('dlp-rules', {
    tables: ['dlp_data_types', 'dlp_custom_rules'],
    ttlMs: CACHE_TTL_MS,
    max: 10_000,
  });
  const toolsCache = deps.caches.create<string[]>('dlp-tools', {
    tables: ['security_tools'],
    ttlMs: CACHE_TTL_MS,
    max: 10_000,
  });
  const entriesCache = deps.caches.create<ExceptionMatch[]>('dlp-exceptions', {
    tables: ['sender_lists'],
    ttlMs: CACHE_TTL_MS,
    max: 10_000,
  });

  async function settings(tenantId: string): Promise<DlpSettings> {
    const [types, rules] = await Promise.all([repo.dataTypesOf(tenantId), repo.customRulesOf(tenantId)]);
    const stored = new Map(types.map((t) => [t.type, t]));
    return {
      dataTypes: DLP_DATA_TYPES.map((type) => {
        const row = stored.get(type);
        return row
          ? {
              type,
              enabled: row.enabled,
              action: row.action,
              threshold: row.threshold,
              fileTypes: row.fileTypes,
            }
          : { type, ...DEFAULTS[type] };
      }),
      customRules: rules.map(customView),
    };
  }

  const rulesOf = (tenantId: string) => rulesCache.get(tenantId, () => compiledRulesOf(tenantId));

  async function compiledRulesOf(tenantId: string): Promise<TenantRules> {
    const current = await settings(tenantId);
    const types = current.dataTypes.filter((t) => t.enabled);
    const custom = current.customRules.filter((r) => r.enabled);
    const actionOf = new Map<string, DlpAction>([
      ...types.map((t) => [t.type, t.action] as const),
      ...custom.map((r) => [`custom:${r.id}`, r.action] as const),
    ]);
    return {
      compiled: compileDlpRules({
        types: types.map((t) => ({ type: t.type, threshold: t.threshold, fileTypes: t.fileTypes })),
        custom,
      }),
      actionOf,
      any: actionOf.size > 0,
    };
  }

  function hitsOf(rules: TenantRules, content: DlpContent): DlpHit[] {
    return findDlp(content, rules.compiled).map((finding) => ({
      ...finding,
      action:
        rules.actionOf.get(finding.type === 'custom' ? `custom:${finding.ruleId}` : finding.type) ??
        'deliver',
    }));
  }

  function checkRule(
    input: DlpCustomRuleInput,
  ): Omit<DlpCustomRuleRow, 'id' | 'tenantId' | 'createdAt' | 'updatedAt'> {
    const keywords = [...new Set(input.keywords.map((k) => k.trim()).filter((k) => k !== ''))];
    const pattern = input.kind === 'regex' ? input.pattern.trim() : '';
    if (input.kind === 'keywords' && keywords.length === 0)
      throw badRequest('Enter at least one keyword', [
        { field: 'keywords', message: 'Enter at least one keyword' },
      ]);
    if (input.kind === 'regex') {
      const problem = checkDlpPattern(pattern);
      if (problem) throw badRequest(problem, [{ field: 'pattern', message: problem }]);
    }
    return {
      name: input.name.trim(),
      kind: input.kind,
      keywords: input.kind === 'keywords' ? keywords : [],
      pattern,
      enabled: input.enabled,
      action: input.action,
      threshold: input.threshold,
    };
  }

  const changed = (tenantId: string) => rulesCache.forget(tenantId);

  return {
    settings,

    async updateDataType(
      tenantId: string,
      type: DlpDataType,
      update: DlpDataTypeUpdate,
      actor: Actor,
    ): Promise<DlpDataTypeSetting> {
      const current = (await settings(tenantId)).dataTypes.find((t) => t.type === type)!;
      const next: DlpDataTypeSetting = {
        type,
        enabled: update.enabled ?? current.enabled,
        action: update.action ?? current.action,
        threshold: update.threshold ?? current.threshold,
        fileTypes:
          type === 'file_type' && update.fileTypes
            ? [...new Set(update.fileTypes.map(fileTypeOf).filter((f) => /^[a-z0-9]{1,20}$/.test(f)))]
            : current.fileTypes,
      };
      if (type === 'file_type' && update.fileTypes && next.fileTypes.length !== update.fileTypes.length) {
        const bad = update.fileTypes.find((f) => !/^[a-z0-9]{1,20}$/.test(fileTypeOf(f)));
        if (bad !== undefined)
          throw badRequest(
            `"${bad.slice(0, 40)}" is not a file type (letters and digits, like pdf or xlsx)`,
            [{ field: 'fileTypes', message: 'Letters and digits only, like pdf or xlsx' }],
          );
      }
      await repo.saveDataType({ tenantId, ...next }, clock.now());
      changed(tenantId);
      await deps.audit.record(actor, {
        tenantId,
        action: 'dlp.data_type_changed',
        targetType: 'tenant',
        targetId: tenantId,
        details: { ...next },
      });
      return next;
    },

    async createRule(tenantId: string, input: DlpCustomRuleInput, actor: Actor): Promise<DlpCustomRule> {
      const checked = checkRule(input);
      if ((await repo.countRules(tenantId)) >= DLP_CUSTOM_RULES_MAX)
        throw badRequest(`An organisation may have at most ${DLP_CUSTOM_RULES_MAX} custom rules`);
      const row = await repo.insertRule({ tenantId, ...checked }, clock.now());
      changed(tenantId);
      await deps.audit.record(actor, {
        tenantId,
        action: 'dlp.rule_created',
        targetType: 'tenant',
        targetId: tenantId,
        details: { id: row.id, name: row.name, kind: row.kind, action: row.action },
      });
      return customView(row);
    },

    async updateRule(
      tenantId: string,
      id: string,
      input: DlpCustomRuleInput,
      actor: Actor,
    ): Promise<DlpCustomRule> {
      const row = await repo.updateRule(tenantId, id, checkRule(input), clock.now());
      if (!row) throw notFound('No such custom rule');
      changed(tenantId);
      await deps.audit.record(actor, {
        tenantId,
        action: 'dlp.rule_changed',
        targetType: 'tenant',
        targetId: tenantId,
        details: { id: row.id, name: row.name, kind: row.kind, action: row.action, enabled: row.enabled },
      });
      return customView(row);
    },

    async deleteRule(tenantId: string, id: string, actor: Actor): Promise<void> {
      const row = await repo.deleteRule(tenantId, id);
      if (!row) throw notFound('No such custom rule');
      changed(tenantId);
      await deps.audit.record(actor, {
        tenantId,
        action: 'dlp.rule_deleted',
        targetType: 'tenant',
        targetId: tenantId,
        details: { id: row.id, name: row.name },
      });
    },

    /** What the tenant's rules find in a text (the console's "try it"): nothing is stored. */
    async test(tenantId: string, text: string): Promise<DlpHit[]> {
      return hitsOf(await rulesOf(tenantId), {
        subject: '',
        body: text,
        parts: [],
        files: [],
        unchecked: [],
      });
    },

    /**
     * Check an outbound message (nothing when the tenant turned DLP off): a DLP block entry on the sender or a recipient refuses it; an
     * allow entry on the sender, on every recipient or on their domains lets it pass unchecked;
     * otherwise its hits and the strictest of their actions (null: no hit).
     */
    async check(
      tenantId: string,
      people: { senders: string[]; recipients: string[] },
      content: () => Promise<DlpContent>,
    ): Promise<DlpDecision> {
      const off = await toolsCache.get(tenantId, () => deps.disabledToolsOf(tenantId));
      if (off.includes('dlp')) return { hits: [], action: null, exception: null };
      const senderSets = people.senders.map(senderKeys);
      const recipientSets = people.recipients.map(senderKeys);
      const values = [...new Set([...senderSets.flat(), ...recipientSets.flat()])];
      const now = clock.now().getTime();
      const key = `${tenantId}\n${values.sort().join('\n')}`;
      const entries = (await entriesCache.get(key, () => deps.exceptionsAmong(tenantId, values))).filter(
        (e) =>
          e.scope === 'dlp' &&
          (e.kind === 'sender' || e.kind === 'domain') &&
          (!e.expiresAt || e.expiresAt.getTime() > now),
      );
      const on = (list: 'allow' | 'block', keys: string[]) =>
        entries.find((e) => e.list === list && keys.includes(e.value));
      const block = [...senderSets, ...recipientSets].map((keys) => on('block', keys)).find(Boolean);
      if (block) return { hits: [], action: 'refuse', exception: { list: 'block', entry: block } };
      // A sender is allowed only when every identity it shows is (the envelope sender and From):
      // an allowed address written into one of them alone excuses nothing.
      const allowed =
        (senderSets.length > 0 && senderSets.every((keys) => on('allow', keys))
          ? on('allow', senderSets[0]!)
          : undefined) ??
        (recipientSets.length > 0 && recipientSets.every((keys) => on('allow', keys))
          ? on('allow', recipientSets[0]!)
          : undefined);
      if (allowed) return { hits: [], action: null, exception: { list: 'allow', entry: allowed } };
      const rules = await rulesOf(tenantId);
      if (!rules.any) return { hits: [], action: null, exception: null };
      const hits = hitsOf(rules, await content());
      const action = hits.reduce<DlpAction | null>(
        (worst, hit) =>
          worst === null || DLP_ACTION_ORDER[hit.action] > DLP_ACTION_ORDER[worst] ? hit.action : worst,
        null,
      );
      return { hits, action, exception: null };
    },
  };
}
export type DlpService = ReturnType<typeof createDlpService>;
