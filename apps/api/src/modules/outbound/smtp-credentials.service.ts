import { randomBytes } from 'node:crypto';
import type { SmtpCredential, SmtpCredentialCreated } from '@moat/contracts/outbound';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { generatePassword, hashPassword, verifyPassword } from '../../lib/passwords.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { SmtpCredentialRow, SmtpCredentialsRepo } from './smtp-credentials.repo.ts';

/** Letters and digits a person can read back without confusing them (no 0/o, 1/l). */
const READABLE = 'abcdefghijkmnpqrstuvwxyz23456789';
/** A credential's last use is written at most this often (one write per connection would be many). */
const TOUCH_EVERY_MS = 60_000;

/** A user name no other credential has: `smtp-` and 10 readable characters (50 bits). */
function newUsername(): string {
  const bytes = randomBytes(10);
  return `smtp-${[...bytes].map((b) => READABLE[b % READABLE.length]).join('')}`;
}

export const credentialView = (row: SmtpCredentialRow): SmtpCredential => ({
  id: row.id,
  username: row.username,
  label: row.label,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
});

/**
 * SMTP submission credentials (issue 38): made by an admin (console or `tenant:smtp-credential`),
 * the password shown once and kept as an argon2id hash; revoked, never deleted (the audit keeps who
 * used which). `authenticate` is what the submission port asks at AUTH.
 */
export function createSmtpCredentialsService(deps: {
  repo: SmtpCredentialsRepo;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
}) {
  const { repo } = deps;
  const touched = new Map<string, number>();
  /** A hash of a password nobody knows, made once, checked for unknown user names. */
  let dummy: Promise<string> | null = null;
  return {
    async list(tenantId: string): Promise<SmtpCredential[]> {
      return (await repo.listOf(tenantId)).map(credentialView);
    },

    async create(tenantId: string, label: string, actor: Actor): Promise<SmtpCredentialCreated> {
      const password = generatePassword();
      const row = await repo.insert({
        tenantId,
        username: newUsername(),
        passwordHash: await hashPassword(password),
        label: label.trim(),
      });
      await deps.audit.record(actor, {
        tenantId,
        action: 'outbound.credential_created',
        targetType: 'tenant',
        targetId: tenantId,
        details: { username: row.username, label: row.label },
      });
      return { credential: credentialView(row), password };
    },

    async revoke(tenantId: string, id: string, actor: Actor): Promise<SmtpCredential> {
      const row = await repo.revoke(tenantId, id, deps.clock.now());
      if (!row) throw new AppError('not_found', 'No such credential, or it is revoked already');
      await deps.audit.record(actor, {
        tenantId,
        action: 'outbound.credential_revoked',
        targetType: 'tenant',
        targetId: tenantId,
        details: { username: row.username, label: row.label },
      });
      return credentialView(row);
    },

    /** Whether a credential is not revoked (asked at every message of an open session). */
    async stillValid(id: string): Promise<boolean> {
      return repo.isActive(id);
    },

    /** The tenant a user name and password belong to, or null (unknown, revoked or wrong password). */
    async authenticate(username: string, password: string): Promise<{ tenantId: string; id: string } | null> {
      if (username.length > 64 || password.length > 256) return null;
      const row = await repo.findActive(username.trim().toLowerCase());
      // An unknown name costs a hash as well: the time tells nothing about which names exist.
      if (!row) {
        dummy ??= hashPassword(generatePassword());
        await verifyPassword(await dummy, password);
        return null;
      }
      if (!(await verifyPassword(row.passwordHash, password))) return null;
      const now = deps.clock.now().getTime();
      if ((touched.get(row.id) ?? 0) + TOUCH_EVERY_MS <= now) {
        touched.set(row.id, now);
        await repo.touch(row.id, new Date(now));
      }
      return { tenantId: row.tenantId, id: row.id };
    },
  };
}
export type SmtpCredentialsService = ReturnType<typeof createSmtpCredentialsService>;
