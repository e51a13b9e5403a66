import { SESSION_COOKIE } from '@moat/contracts/current-user';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/client.ts';
import { saasApps, securityTools } from '../db/schema.ts';
import { CSRF } from './app.ts';
import { buildSession, buildTenant, buildUser } from './factories.ts';

/** A signed-in user of a fresh tenant, and calls made as that user (through the session cookie). */
export async function signedInAs(
  app: FastifyInstance,
  db: Db,
  options: {
    tenant?: Parameters<typeof buildTenant>[1];
    user?: Parameters<typeof buildUser>[2];
    apps?: string[];
    tools?: string[];
  } = {},
) {
  const tenant = await buildTenant(db, options.tenant);
  const user = await buildUser(db, tenant.id, { role: 'admin', ...options.user });
  for (const name of options.apps ?? []) await db.insert(saasApps).values({ tenantId: tenant.id, name });
  for (const name of options.tools ?? [])
    await db.insert(securityTools).values({ tenantId: tenant.id, name });
  const { token } = await buildSession(db, user);
  const cookies = { [SESSION_COOKIE]: token };
  return {
    tenant,
    user,
    cookies,
    get: (url: string) => app.inject({ method: 'GET', url, cookies }),
    send: (method: 'POST' | 'PUT', url: string, payload: object = {}) =>
      app.inject({ method, url, cookies, headers: CSRF, payload }),
  };
}
