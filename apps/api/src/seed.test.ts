import { verify } from '@node-rs/argon2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from './db/client.ts';
import { saasApps, securityTools, tenantDomains, users } from './db/schema.ts';
import { systemClock } from './lib/clock.ts';
import { seedFirstTenant } from './seed.ts';
import { openTestDatabase } from './test/database.ts';

let database: Database;
beforeEach(async () => {
  database = await openTestDatabase();
});
afterEach(() => database.close());

describe('seedFirstTenant', () => {
  it('creates the first tenant on the admin domain and its admin with the given password', async () => {
    const result = await seedFirstTenant(
      database.db,
      { adminEmail: 'root@corp.test', adminPassword: 'given-password' },
      systemClock,
    );
    expect(result).toEqual({
      adminEmail: 'root@corp.test',
      generatedPassword: null,
      tenantName: 'corp.test',
    });
    const [domain] = await database.db.select().from(tenantDomains);
    expect(domain!.domain).toBe('corp.test');
    const [admin] = await database.db.select().from(users);
    // A password the operator chose is not a one-time one.
    expect(admin).toMatchObject({
      email: 'root@corp.test',
      role: 'admin',
      status: 'active',
      mustChangePassword: false,
    });
    expect(await verify(admin!.passwordHash!, 'given-password')).toBe(true);
    // SMTP mail is protected out of the box (quick search finds gateway mail), by every engine.
    expect(await database.db.select({ name: saasApps.name, state: saasApps.state }).from(saasApps)).toEqual([
      { name: 'smtp_emails', state: 'enabled' },
    ]);
    const tools = await database.db.select({ name: securityTools.name }).from(securityTools);
    expect(tools.map((tool) => tool.name).sort()).toEqual(['anti_malware', 'anti_spam', 'ap_avanan', 'dlp']);
  });

  it('generates a strong password when none is given, and returns it once', async () => {
    const result = await seedFirstTenant(
      database.db,
      { adminEmail: undefined, adminPassword: undefined },
      systemClock,
    );
    expect(result?.adminEmail).toBe('admin@example.com');
    expect(result?.generatedPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const [admin] = await database.db.select().from(users);
    expect(await verify(admin!.passwordHash!, result!.generatedPassword!)).toBe(true);
    // It was printed on a terminal: the first sign-in must replace it.
    expect(admin!.mustChangePassword).toBe(true);
  });

  it('does nothing once a tenant exists', async () => {
    await seedFirstTenant(
      database.db,
      { adminEmail: 'a@one.test', adminPassword: 'password-1' },
      systemClock,
    );
    const again = await seedFirstTenant(
      database.db,
      { adminEmail: 'b@two.test', adminPassword: 'password-2' },
      systemClock,
    );
    expect(again).toBeNull();
    expect(await database.db.select().from(users)).toHaveLength(1);
  });
});
