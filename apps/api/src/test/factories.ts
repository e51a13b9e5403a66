import { randomBytes } from 'node:crypto';
import type { Db } from '../db/client.ts';
import { sessions, tenantDomains, tenants, users } from '../db/schema.ts';
import { hashToken, newToken } from '../lib/tokens.ts';

const unique = () => randomBytes(4).toString('hex');

export async function buildTenant(
  db: Db,
  overrides: Partial<typeof tenants.$inferInsert> & { domain?: string } = {},
) {
  const { domain = `t${unique()}.test`, ...values } = overrides;
  const [tenant] = await db
    .insert(tenants)
    .values({ name: `Tenant ${domain}`, ...values })
    .returning();
  await db.insert(tenantDomains).values({ tenantId: tenant!.id, domain });
  return { ...tenant!, domain };
}

export async function buildUser(
  db: Db,
  tenantId: string,
  overrides: Partial<typeof users.$inferInsert> = {},
) {
  const [user] = await db
    .insert(users)
    .values({ tenantId, email: `u${unique()}@example.test`, role: 'user', ...overrides })
    .returning();
  return user!;
}

/** A session row and the cookie token that opens it. */
export async function buildSession(
  db: Db,
  user: { id: string; tenantId: string },
  overrides: Partial<typeof sessions.$inferInsert> = {},
) {
  const token = newToken();
  const now = new Date();
  const [session] = await db
    .insert(sessions)
    .values({
      tokenHash: hashToken(token),
      userId: user.id,
      tenantId: user.tenantId,
      expiresAt: new Date(now.getTime() + 12 * 3600_000),
      ...overrides,
    })
    .returning();
  return { session: session!, token };
}
