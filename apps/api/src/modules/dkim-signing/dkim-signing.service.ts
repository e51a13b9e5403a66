import type { AuditAction } from '@moat/contracts/audit';
import {
  DKIM_KEEP_RETIRED_DAYS,
  type DkimAlgorithm,
  type DkimPublished,
  type DkimSigningDomain,
  type DkimSigningKey,
  type DkimSigningResponse,
} from '@moat/contracts/dkim-signing';
import type { Db } from '../../db/client.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ServerKey } from '../../lib/server-key.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import { type DkimResolver, keyName, nextSelector } from '../dmarc/dkim.ts';
import { generateSigningKey, publishedState, recordValue } from './dkim-keys.ts';
import { DKIM_KEY_PURPOSE } from './dkim-signer.ts';
import type { DkimSigningRepo, SigningKeyRow } from './dkim-signing.repo.ts';

const DAY = 86_400_000;
/** Selectors Moat gives its keys: moat1, moat2 … (RSA), moated1 … (Ed25519), never one in use. */
const SELECTOR_BASE: Record<DkimAlgorithm, string> = { 'rsa-sha256': 'moat0', 'ed25519-sha256': 'moated0' };
const ALGORITHM_WORD: Record<DkimAlgorithm, string> = { 'rsa-sha256': 'RSA', 'ed25519-sha256': 'Ed25519' };

/**
 * DKIM signing (issue 38): each tenant domain's own keys, made here and sealed; the record to
 * publish for each; signing on or off per domain, with a warning (never a refusal) while DNS does
 * not show the key; rotation with a second selector and no gap (the next key is published before
 * it signs, the old one stays published a week after). The console and `tenant:dkim` both call it.
 */
export function createDkimSigningService(deps: {
  db: Db;
  repo: DkimSigningRepo;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
  serverKey: Pick<ServerKey, 'encrypt'>;
  resolver: DkimResolver;
  /** Told after every change, so this node signs with the new keys at once. */
  changed?: () => void;
}) {
  const { db, repo } = deps;

  async function ownDomain(tenantId: string, domain: string): Promise<{ domain: string; enabled: boolean }> {
    const wanted = domain.trim().toLowerCase().replace(/\.$/, '');
    const all = await repo.domainsOf(tenantId);
    const own = all.find((d) => d.domain === wanted);
    if (!own) {
      throw new AppError(
        'not_found',
        `${wanted || 'That'} is not one of your domains (${all.map((d) => d.domain).join(', ') || 'none yet'})`,
      );
    }
    return own;
  }

  /** What DNS shows at each key's name now; a failed look-up is `unknown`, never an error. */
  async function published(keys: SigningKeyRow[]): Promise<Map<string, DkimPublished>> {
    const answers = await Promise.all(
      keys.map(async (key): Promise<[string, DkimPublished]> => {
        try {
          const records = await deps.resolver(keyName(key.selector, key.domain));
          return [key.id, publishedState(Array.isArray(records) ? records : [], key.publicKey)];
        } catch (error) {
          const code = (error as { code?: string }).code ?? '';
          const none = ['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN'].includes(code);
          return [key.id, none ? 'no' : 'unknown'];
        }
      }),
    );
    return new Map(answers);
  }

  function warningsOf(enabled: boolean, keys: DkimSigningKey[], now: Date): string[] {
    const warnings: string[] = [];
    for (const key of keys) {
      const what = `${ALGORITHM_WORD[key.algorithm]} key ${key.selector}`;
      if (key.state === 'active' && key.published !== 'yes') {
        const effect = enabled
          ? `receivers fail DKIM for the mail Moat signs with it until it is.`
          : 'publish it before you turn signing on.';
        warnings.push(
          key.published === 'unknown'
            ? `Could not look up ${key.recordName} just now: check that the ${what} is published there.`
            : key.published === 'other'
              ? `${key.recordName} publishes a different key than the ${what}: replace that record with the one shown; ${effect}`
              : `The ${what} is not visible in DNS yet: publish a TXT record at ${key.recordName} with the value shown; ${effect}`,
        );
      }
      if (key.state === 'pending' && key.published !== 'yes') {
        warnings.push(
          `The next key ${key.selector} is not visible in DNS yet: publish it at ${key.recordName}, wait for DNS to show it, then finish the rotation.`,
        );
      }
      if (key.state === 'retired' && key.removeAfter && key.published === 'yes') {
        const due = new Date(`${key.removeAfter}T00:00:00Z`) <= now;
        warnings.push(
          due
            ? `The retired key ${key.selector} no longer signs any mail: remove ${key.recordName} from DNS.`
            : `Keep the retired key ${key.selector} published at ${key.recordName} until ${key.removeAfter}, for mail still on its way; then remove it.`,
        );
      }
    }
    return warnings;
  }

  function viewOf(key: SigningKeyRow, state: DkimPublished): DkimSigningKey {
    return {
      selector: key.selector,
      algorithm: key.algorithm,
      bits: key.bits,
      state: key.state,
      recordName: keyName(key.selector, key.domain),
      recordValue: recordValue(key.algorithm, key.publicKey),
      published: state,
      createdAt: key.createdAt.toISOString(),
      activatedAt: key.activatedAt?.toISOString() ?? null,
      retiredAt: key.retiredAt?.toISOString() ?? null,
      removeAfter: key.retiredAt
        ? new Date(key.retiredAt.getTime() + DKIM_KEEP_RETIRED_DAYS * DAY).toISOString().slice(0, 10)
        : null,
    };
  }

  async function domainsView(
    tenantId: string,
    domains: Array<{ domain: string; enabled: boolean }>,
  ): Promise<DkimSigningDomain[]> {
    const keys = await repo.keysOf(
      tenantId,
      domains.map((d) => d.domain),
    );
    const states = await published(keys);
    const now = deps.clock.now();
    return domains.map(({ domain, enabled }) => {
      const own = keys
        .filter((k) => k.domain === domain)
        .map((k) => viewOf(k, states.get(k.id) ?? 'unknown'));
      return { domain, enabled, keys: own, warnings: warningsOf(enabled, own, now) };
    });
  }

  async function domainView(tenantId: string, domain: string): Promise<DkimSigningDomain> {
    const own = await ownDomain(tenantId, domain);
    return (await domainsView(tenantId, [own]))[0]!;
  }

  /** A new key of `algorithm` for `domain`, `pending` during a rotation, else `active`. */
  async function makeKey(
    tenantId: string,
    domain: string,
    algorithm: DkimAlgorithm,
    state: 'active' | 'pending',
    /** The domain's keys as the caller just read them: their selectors are taken. */
    existing: SigningKeyRow[],
  ): Promise<SigningKeyRow> {
    const made = await generateSigningKey(algorithm);
    const taken = existing.map((k) => k.selector);
    const now = deps.clock.now();
    try {
      return await repo.insert({
        tenantId,
        domain,
        selector: nextSelector(SELECTOR_BASE[algorithm], taken),
        algorithm,
        bits: made.bits,
        privateKey: deps.serverKey.encrypt(DKIM_KEY_PURPOSE, made.privatePem),
        publicKey: made.publicKey,
        state,
        activatedAt: state === 'active' ? now : null,
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new AppError(
          'conflict',
          `${domain} was given a new key at the same moment: reload and look again`,
        );
      }
      throw error;
    }
  }

  const audit = (actor: Actor, tenantId: string, action: AuditAction, details: Record<string, unknown>) =>
    deps.audit.record(actor, { tenantId, action, targetType: 'tenant', targetId: tenantId, details });

  return {
    async list(tenantId: string): Promise<DkimSigningResponse> {
      return { domains: await domainsView(tenantId, await repo.domainsOf(tenantId)) };
    },

    domain: domainView,

    /** The keys that sign or are about to (active first), with their records, for DKIM Management's check. */
    async publishedKeys(tenantId: string) {
      const domains = (await repo.domainsOf(tenantId)).map((d) => d.domain);
      return (await repo.keysOf(tenantId, domains))
        .filter((k) => k.state !== 'retired')
        .sort((a, b) => (a.state === b.state ? 0 : a.state === 'active' ? -1 : 1))
        .map((k) => ({
          domain: k.domain,
          selector: k.selector,
          recordValue: recordValue(k.algorithm, k.publicKey),
        }));
    },

    /** A first key of `algorithm` for the domain (RSA 2048 by default); refused when it has one. */
    async createKey(tenantId: string, domain: string, algorithm: DkimAlgorithm, actor: Actor) {
      const own = await ownDomain(tenantId, domain);
      const keys = await repo.keysOf(tenantId, [own.domain]);
      if (keys.some((k) => k.algorithm === algorithm && k.state !== 'retired')) {
        throw new AppError(
          'conflict',
          `${own.domain} already has an ${ALGORITHM_WORD[algorithm]} key: rotate it to replace it`,
        );
      }
      const key = await makeKey(tenantId, own.domain, algorithm, 'active', keys);
      await audit(actor, tenantId, 'dkim.key_created', {
        domain: own.domain,
        selector: key.selector,
        algorithm,
      });
      deps.changed?.();
      return domainView(tenantId, own.domain);
    },

    /** The domain's view, with an RSA key made first when it has none (what `tenant:dkim` prints). */
    async ensureKey(tenantId: string, domain: string, actor: Actor) {
      const own = await ownDomain(tenantId, domain);
      const keys = await repo.keysOf(tenantId, [own.domain]);
      if (!keys.some((k) => k.state === 'active')) {
        const key = await makeKey(tenantId, own.domain, 'rsa-sha256', 'active', keys);
        await audit(actor, tenantId, 'dkim.key_created', {
          domain: own.domain,
          selector: key.selector,
          algorithm: key.algorithm,
        });
        deps.changed?.();
      }
      return domainView(tenantId, own.domain);
    },

    /**
     * Signing on or off. On needs a key (an RSA one is made when there is none); a key DNS does
     * not show yet is a warning in the answer, not a refusal: the admin may publish it next.
     */
    async setSigning(tenantId: string, domain: string, enabled: boolean, actor: Actor) {
      const own = await ownDomain(tenantId, domain);
      const keys = enabled ? await repo.keysOf(tenantId, [own.domain]) : [];
      if (enabled && !keys.some((k) => k.state === 'active')) {
        const key = await makeKey(tenantId, own.domain, 'rsa-sha256', 'active', keys);
        await audit(actor, tenantId, 'dkim.key_created', {
          domain: own.domain,
          selector: key.selector,
          algorithm: key.algorithm,
        });
      }
      if (own.enabled !== enabled) {
        await repo.setSigning(tenantId, own.domain, enabled);
        await audit(actor, tenantId, enabled ? 'dkim.signing_enabled' : 'dkim.signing_disabled', {
          domain: own.domain,
        });
        deps.changed?.();
      }
      return domainView(tenantId, own.domain);
    },

    /** A rotation's first step: the next key at a new selector, to publish; the current one still signs. */
    async rotate(tenantId: string, domain: string, algorithm: DkimAlgorithm, actor: Actor) {
      const own = await ownDomain(tenantId, domain);
      const keys = await repo.keysOf(tenantId, [own.domain]);
      const current = keys.find((k) => k.algorithm === algorithm && k.state === 'active');
      if (!current) {
        throw new AppError(
          'conflict',
          `${own.domain} has no ${ALGORITHM_WORD[algorithm]} key to rotate: create one`,
        );
      }
      if (keys.some((k) => k.algorithm === algorithm && k.state === 'pending')) {
        throw new AppError(
          'conflict',
          `A rotation of ${own.domain}'s ${ALGORITHM_WORD[algorithm]} key is under way: finish it first`,
        );
      }
      const next = await makeKey(tenantId, own.domain, algorithm, 'pending', keys);
      await audit(actor, tenantId, 'dkim.rotation_started', {
        domain: own.domain,
        from: current.selector,
        to: next.selector,
        algorithm,
      });
      return domainView(tenantId, own.domain);
    },

    /** The rotation's switch: the next key signs from now; the old one retires (kept published a week). */
    async finishRotation(tenantId: string, domain: string, algorithm: DkimAlgorithm, actor: Actor) {
      const own = await ownDomain(tenantId, domain);
      const keys = await repo.keysOf(tenantId, [own.domain]);
      const next = keys.find((k) => k.algorithm === algorithm && k.state === 'pending');
      if (!next) {
        throw new AppError(
          'conflict',
          `No rotation of ${own.domain}'s ${ALGORITHM_WORD[algorithm]} key is under way: start one first`,
        );
      }
      // The switch waits for DNS: signing with a key receivers cannot find fails every message.
      const shown = (await published([next])).get(next.id);
      if (shown === 'no' || shown === 'other') {
        throw new AppError(
          'conflict',
          `DNS does not show the next key at ${keyName(next.selector, own.domain)} yet: publish its record and finish the rotation once DNS shows it (until then ${own.domain}'s mail is signed with the current key)`,
        );
      }
      const from = keys.find((k) => k.algorithm === algorithm && k.state === 'active');
      await db.transaction(async (tx) => {
        await repo.promote(own.domain, algorithm, deps.clock.now(), tx);
        await deps.audit.record(
          actor,
          {
            tenantId,
            action: 'dkim.rotation_finished',
            targetType: 'tenant',
            targetId: tenantId,
            details: { domain: own.domain, from: from?.selector ?? null, to: next.selector, algorithm },
          },
          tx,
        );
      });
      deps.changed?.();
      return domainView(tenantId, own.domain);
    },
  };
}
export type DkimSigningService = ReturnType<typeof createDkimSigningService>;
