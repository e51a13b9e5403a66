import { domainOfEmail } from '@moat/contracts/validation';
import type { Config } from './config.ts';
import type { Db } from './db/client.ts';
import { systemActor } from './lib/actor.ts';
import type { Clock } from './lib/clock.ts';
import { generatePassword } from './lib/passwords.ts';
import { createAuditRepo } from './modules/audit/audit.repo.ts';
import { createFeaturesRepo } from './modules/features/features.repo.ts';
import { createTenantsRepo } from './modules/tenants/tenants.repo.ts';
import { createTenantsService } from './modules/tenants/tenants.service.ts';
import { createUsersRepo } from './modules/users/users.repo.ts';
import { createUsersService } from './modules/users/users.service.ts';

export const DEFAULT_ADMIN_EMAIL = 'admin@example.com';

export interface SeedResult {
  adminEmail: string;
  /** Set only when the password was generated: it is shown once and never stored in clear. */
  generatedPassword: string | null;
  tenantName: string;
}

/**
 * First start on an empty database: create the first tenant (its mail domain is the admin
 * address's domain) and its admin. Does nothing once any tenant exists.
 */
export async function seedFirstTenant(
  db: Db,
  config: Pick<Config, 'adminEmail' | 'adminPassword'>,
  clock: Clock,
): Promise<SeedResult | null> {
  const tenants = createTenantsRepo(db);
  const audit = createAuditRepo(db);
  if ((await tenants.count()) > 0) return null;
  const adminEmail = config.adminEmail ?? DEFAULT_ADMIN_EMAIL;
  const domain = domainOfEmail(adminEmail);
  const generatedPassword = config.adminPassword ? null : generatePassword();
  const tenant = await createTenantsService({ db, tenants, features: createFeaturesRepo(db), audit }).create(
    { name: domain, domains: [domain] },
    systemActor,
  );
  await createUsersService({ db, clock, users: createUsersRepo(db), tenants, audit }).create(
    {
      email: adminEmail,
      role: 'admin',
      password: config.adminPassword ?? generatedPassword!,
      // A generated password was shown in a terminal (and maybe a log): it works once.
      oneTimePassword: generatedPassword !== null,
      tenant,
    },
    systemActor,
  );
  return { adminEmail, generatedPassword, tenantName: tenant.name };
}
