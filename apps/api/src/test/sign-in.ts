import { AUTH_API } from '@moat/contracts/auth-paths';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { desc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/client.ts';
import { outbox } from '../db/schema.ts';
import { hashPassword } from '../lib/passwords.ts';
import { CSRF } from './app.ts';
import { buildTenant, buildUser } from './factories.ts';

/**
 * Solve a real ALTCHA challenge from the server, as the browser widget does; `strong`: the
 * stronger one an account that sees many failed sign-ins asks for.
 */
export async function solveCaptcha(app: FastifyInstance, strength?: 'strong'): Promise<string> {
  const url = strength ? `${AUTH_API.captchaChallenge}?strength=${strength}` : AUTH_API.captchaChallenge;
  const challenge = (await app.inject({ method: 'GET', url })).json();
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('could not solve the captcha');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

/** Cookies of an answer, by name. */
export function cookiesOf(res: { cookies: Array<{ name: string; value: string }> }): Record<string, string> {
  return Object.fromEntries(res.cookies.map((c) => [c.name, c.value]));
}

/** A browser-like cookie jar: keeps what the server sets, drops what it clears. */
export class Jar {
  readonly cookies: Record<string, string> = {};
  /** Each jar is its own client address, as separate browsers are (unless given one). */
  constructor(readonly ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`) {}
  take<R extends { cookies: Array<{ name: string; value: string; maxAge?: number; expires?: Date }> }>(
    res: R,
  ): R {
    for (const c of res.cookies) {
      const cleared = c.value === '' || c.maxAge === 0 || (c.expires && c.expires.getTime() <= Date.now());
      if (cleared) delete this.cookies[c.name];
      else this.cookies[c.name] = c.value;
    }
    return res;
  }
  get session(): string | undefined {
    return this.cookies[SESSION_COOKIE];
  }
}

export async function postJson(
  app: FastifyInstance,
  jar: Jar,
  url: string,
  payload?: unknown,
  method: 'POST' | 'PUT' | 'DELETE' = 'POST',
) {
  return jar.take(
    await app.inject({
      method,
      url,
      headers: CSRF,
      cookies: jar.cookies,
      remoteAddress: jar.ip,
      ...(payload === undefined ? {} : { payload: payload as object }),
    }),
  );
}

export async function login(
  app: FastifyInstance,
  jar: Jar,
  email: string,
  password: string,
  captcha?: 'strong',
) {
  return postJson(app, jar, AUTH_API.login, {
    email,
    current_password: password,
    recaptcha_token: await solveCaptcha(app, captcha),
  });
}

/**
 * A fresh tenant with an admin (`admin@`) and a user (`ana@`) who both have `password`, and the
 * admin signed in through the sign-in form's API (`signedIn` is its answer).
 */
export async function tenantWithAdminSignedIn(app: FastifyInstance, db: Db, password: string) {
  const tenant = await buildTenant(db);
  const passwordHash = await hashPassword(password);
  await buildUser(db, tenant.id, { email: `admin@${tenant.domain}`, role: 'admin', passwordHash });
  await buildUser(db, tenant.id, { email: `ana@${tenant.domain}`, role: 'user', passwordHash });
  const admin = new Jar();
  const signedIn = await login(app, admin, `admin@${tenant.domain}`, password);
  return { tenantId: tenant.id, domain: tenant.domain, admin, signedIn };
}

/** The newest mail to an address, as kept in the outbox. */
export async function lastMail(db: Db, to: string, kind?: string) {
  const rows = await db
    .select()
    .from(outbox)
    .where(eq(outbox.toAddress, to))
    .orderBy(desc(outbox.createdAt))
    .limit(10);
  const row = rows.find((r) => !kind || r.kind === kind);
  if (!row) throw new Error(`no mail to ${to}${kind ? ` of kind ${kind}` : ''}`);
  return row;
}

export function codeIn(text: string): string {
  const match = /^(\d{6})$/m.exec(text);
  if (!match) throw new Error(`no 6-digit code in:\n${text}`);
  return match[1]!;
}
