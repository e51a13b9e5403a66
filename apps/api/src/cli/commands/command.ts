import fs from 'node:fs';
import type { ParseArgsConfig } from 'node:util';
import type { Verdict } from '@moat/contracts/quarantine';
import type { Config } from '../../config.ts';
import type { Db, DbOrTx } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ServerKey } from '../../lib/server-key.ts';
import { createGatewayPolicyRepo } from '../../mail/gateway/gateway-policy.repo.ts';
import { createSenderListsCliRepo } from '../../mail/gateway/sender-lists-cli.repo.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { createAuditRepo } from '../../modules/audit/audit.repo.ts';
import { createUserTokensRepo } from '../../modules/auth/user-tokens.repo.ts';
import { createDkimSigningRepo } from '../../modules/dkim-signing/dkim-signing.repo.ts';
import { createDkimSigningService } from '../../modules/dkim-signing/dkim-signing.service.ts';
import { dkimResolver } from '../../modules/dmarc/dkim.service.ts';
import { createFeaturesRepo } from '../../modules/features/features.repo.ts';
import { createSmtpCredentialsRepo } from '../../modules/outbound/smtp-credentials.repo.ts';
import { createSmtpCredentialsService } from '../../modules/outbound/smtp-credentials.service.ts';
import { restorePolicyFrom } from '../../modules/quarantine/policy.ts';
import { createQuarantineRepo } from '../../modules/quarantine/quarantine.repo.ts';
import { createIncidentsRepo } from '../../modules/service-status/incidents.repo.ts';
import { createTenantsRepo } from '../../modules/tenants/tenants.repo.ts';
import { createTenantsService } from '../../modules/tenants/tenants.service.ts';
import { createUsersRepo } from '../../modules/users/users.repo.ts';
import { createUsersService } from '../../modules/users/users.service.ts';

export interface CliContext {
  db: Db;
  config: Pick<Config, 'publicUrl'> &
    Partial<Pick<Config, 'supportEmail' | 'dnsServers' | 'submissionPort' | 'gateway'>>;
  /** The server's key, which seals secrets (DKIM keys); the server's own through the bridge. */
  serverKey?: ServerKey;
  /** Outgoing mail: the server's when the command runs through it, else the CLI's own. */
  mailer?: Mailer;
  clock: Clock;
  /** Where relative file paths are resolved: the directory the command was typed in. */
  cwd: string;
  /** Standard input, read by the caller when a command asks for it (--password-stdin). */
  stdin?: string | undefined;
}

/** The repositories and services the commands share, built once per command run from its context. */
export function createCliDeps(ctx: CliContext) {
  const { db, clock } = ctx;
  const tenants = createTenantsRepo(db);
  const users = createUsersRepo(db);
  const features = createFeaturesRepo(db);
  const audit = createAuditRepo(db);
  const quarantine = createQuarantineRepo(db);
  return {
    tenants,
    users,
    audit,
    userTokens: createUserTokensRepo(db),
    incidents: createIncidentsRepo({ db, clock }),
    senderLists: createSenderListsCliRepo(db),
    gatewayPolicies: createGatewayPolicyRepo(db),
    quarantine,
    /** A verdict's restore policy, read each time (a command runs once). */
    restorePolicy: async (tenantId: string, verdict: Verdict, tx?: DbOrTx) =>
      restorePolicyFrom(await quarantine.restorePoliciesOf(tenantId, tx), verdict),
    tenantsService: createTenantsService({ db, tenants, features, audit }),
    smtpCredentials: createSmtpCredentialsService({ repo: createSmtpCredentialsRepo(db), audit, clock }),
    /** DKIM signing keys (tenant:dkim); only where the server's key is at hand. */
    dkimSigning: ctx.serverKey
      ? createDkimSigningService({
          db,
          repo: createDkimSigningRepo(db),
          audit,
          clock,
          serverKey: ctx.serverKey,
          resolver: dkimResolver(ctx.config.dnsServers ?? []),
        })
      : null,
    usersService: createUsersService({ db, clock, users, tenants, audit }),
  };
}
export type CliDeps = ReturnType<typeof createCliDeps>;

type Options = NonNullable<ParseArgsConfig['options']>;

export interface Command {
  summary: string;
  usage: string;
  options: Options;
  positionals?: boolean;
  /** Needs standard input (read by the caller before the command runs). */
  readsStdin?: (values: Record<string, unknown>) => boolean;
  /**
   * Run by the CLI itself, which chooses how to reach the database (the db:* commands: a
   * backup through a running server's snapshot, a restore with no server), never as a whole
   * through the server's bridge.
   */
  standalone?: boolean;
  /** Not listed by --help: a step another command asks the running server for. */
  hidden?: boolean;
  run(
    args: { values: Record<string, unknown>; positionals: string[] },
    ctx: CliContext,
    deps: CliDeps,
  ): Promise<string>;
}

/** A mistake in how the command was typed: exit code 2 and a pointer to --help. */
export class UsageError extends Error {}

export const HELP = { help: { type: 'boolean', short: 'h' } } as const satisfies Options;

export function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function onOff(value: unknown, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'true') return true;
  if (value === 'off' || value === 'false') return false;
  throw new UsageError(`--${name} must be on or off (got "${String(value)}")`);
}

export function oneOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) {
    throw new UsageError(`--${name} must be one of: ${allowed.join(', ')} (got "${String(value)}")`);
  }
  return value as T;
}

/** A YYYY-MM-DD date option (midnight UTC), or null for "off" when `allowOff`. */
export function dateOrOff(value: unknown, name: string, allowOff = true): Date | null | undefined {
  if (value === undefined) return undefined;
  if (allowOff && value === 'off') return null;
  const text = String(value);
  const date = new Date(`${text}T00:00:00Z`);
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(text) ||
    Number.isNaN(date.getTime()) ||
    date.toISOString().slice(0, 10) !== text
  ) {
    throw new UsageError(
      `--${name} must be a date as YYYY-MM-DD${allowOff ? ' or off' : ''} (got "${text}")`,
    );
  }
  return date;
}

export function listOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T[] {
  if (value === undefined) return [];
  const items = String(value)
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) {
      throw new UsageError(`--${name} takes a comma list of ${allowed.join(', ')} (bad: "${item}")`);
    }
  }
  return items as T[];
}

/** A file a command reads (a logo, a message): a missing or unreadable one is the user's error, not a crash. */
export function readFileOrNotFound(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch {
    throw new AppError('not_found', `Cannot read the file ${file}`);
  }
}
