import { AUTH_API } from '@moat/contracts/auth-paths';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { and, eq } from 'drizzle-orm';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog } from '../../db/schema.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { buildQuarantinedMessage, buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import { answerFrameworkError } from './input-guard.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let msg: string;
beforeAll(async () => {
  t = await buildTestApp();
  const tenant = await buildTenant(t.db);
  msg = (await buildQuarantinedMessage(t.db, tenant.id)).publicId;
});
afterAll(() => t.close());

const JSON_TYPE = { 'content-type': 'application/json' };
let ip = 0;
/** Each call from its own address, so the public calls' rate limits stay out of the way. */
const remoteAddress = () => `192.0.2.${(ip++ % 250) + 1}`;

function expectRefused(res: { statusCode: number; json: () => unknown; headers: Record<string, unknown> }) {
  expect(res.statusCode).toBe(400);
  const body = res.json() as { code: string; details: Array<{ field: string; message: string }> };
  expect(body).toMatchObject({
    statusCode: 400,
    code: 'invalid_characters',
    reqId: res.headers['x-request-id'],
  });
  return body;
}

describe('input guard: the URL', () => {
  it.each(['msg', 'email', 'code'])(
    'answers %00 in the query field %s of a public call with 400 invalid_characters, naming the field',
    async (field) => {
      const query = { msg, email: 'r@example.test', code: '123456', [field]: 'a%00b' };
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v1/office365_emails/user_response?${Object.entries(query)
          .map(([key, value]) => `${key}=${value}`)
          .join('&')}`,
        remoteAddress: remoteAddress(),
      });
      const body = expectRefused(res);
      expect(body.details).toEqual([{ field: `query.${field}`, message: 'contains a NUL character' }]);
      expect((body as unknown as { message: string }).message).toBe(
        `query.${field} contains a NUL character`,
      );
    },
  );

  it.each([
    ['%FF', 'a lone continuation byte'],
    ['%C3%28', 'a broken two-byte sequence'],
    ['%ED%A0%80', 'an encoded lone surrogate'],
    ['%E2%82', 'a truncated sequence'],
  ])('answers %s (%s) in a query value with 400 invalid_characters', async (sequence) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/office365_emails/verify_recipient?msg=${msg}&email=x${sequence}y%40example.test`,
      headers: CSRF,
      payload: { action_name: 'email_restore' },
      remoteAddress: remoteAddress(),
    });
    expect(expectRefused(res).details).toEqual([{ field: 'query.email', message: 'is not valid UTF-8' }]);
  });

  it('answers a raw NUL in the query with 400 invalid_characters', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/office365_emails/user_response?msg=${msg}&code=1\u00002`,
      remoteAddress: remoteAddress(),
    });
    expect(expectRefused(res).details).toEqual([
      { field: 'query.code', message: 'contains a NUL character' },
    ]);
  });

  it('answers %00 in a path param with 400 invalid_characters naming the param', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/office365_emails/ab%00cd/entity_exists',
      remoteAddress: remoteAddress(),
    });
    expect(expectRefused(res).details).toEqual([
      { field: 'params.msg', message: 'contains a NUL character' },
    ]);
  });

  it('answers %FF in a path param with 400 before any handler runs', async () => {
    // The router cannot decode the path, so no hook runs: app.ts answers through frameworkErrors.
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/office365_emails/${msg}%FF/entity_exists`,
      remoteAddress: remoteAddress(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ statusCode: 400, reqId: expect.any(String) });
  });

  it('keeps valid escapes: é, an encoded %, and a + are text, not faults', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/office365_emails/user_response?msg=${msg}&email=r%C3%A9%2500+x%40example.test`,
      remoteAddress: remoteAddress(),
    });
    expect(res.statusCode).toBeLessThan(500);
    expect(res.json().code).not.toBe('invalid_characters');
  });
});

describe('input guard: the body', () => {
  const restore = (payload: string | Buffer | object) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/office365_emails/restore?msg=${msg}`,
      headers: { ...CSRF, ...JSON_TYPE },
      payload,
      remoteAddress: remoteAddress(),
    });

  it('answers a NUL nested in a JSON object with 400 invalid_characters naming its path', async () => {
    const res = await restore({ commentary: 'fine', extra: { list: ['ok', { deep: 'a\u0000b' }] } });
    expect(expectRefused(res).details).toEqual([
      { field: 'body.extra.list.1.deep', message: 'contains a NUL character' },
    ]);
  });

  it('answers a NUL in a field name', async () => {
    const res = await restore({ commentary: 'fine', 'x\u0000': 1 });
    expect(expectRefused(res).details).toEqual([
      { field: 'body', message: 'has a field name that contains a NUL character' },
    ]);
  });

  it('answers a JSON body whose bytes are not UTF-8 with 400 invalid_characters', async () => {
    const res = await restore(
      Buffer.concat([Buffer.from('{"commentary":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
    );
    expect(expectRefused(res).details).toEqual([{ field: 'body', message: 'is not valid UTF-8' }]);
  });

  it('answers an escaped lone surrogate ("\\ud800") in JSON with 400 invalid_characters', async () => {
    const res = await restore('{"commentary":"x\\ud800y"}');
    expect(expectRefused(res).details).toEqual([
      { field: 'body.commentary', message: 'contains an unpaired surrogate' },
    ]);
  });

  it('keeps a well-formed surrogate pair (an emoji) as text', async () => {
    const res = await restore('{"commentary":"\\ud83d\\ude00"}');
    expect(res.statusCode).toBeLessThan(500);
    expect(res.json().code).not.toBe('invalid_characters');
  });

  it("keeps Fastify's answers to malformed, empty and oversized JSON", async () => {
    const malformed = await restore('{"commentary": [');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().code).toBe('bad_request');
    const empty = await restore('');
    expect(empty.statusCode).toBe(400);
    expect(empty.json().code).toBe('bad_request');
    const oversized = await restore(JSON.stringify({ commentary: 'x'.repeat(1_100_000) }));
    expect(oversized.statusCode).toBe(413);
    expect(oversized.json().code).toBe('payload_too_large');
  });

  it('still refuses a prototype-poisoning body as before', async () => {
    const res = await restore('{"commentary":"x","__proto__":{"admin":true}}');
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('bad_request');
  });

  it('answers a NUL in a plain-text body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/office365_emails/restore?msg=${msg}`,
      headers: { ...CSRF, 'content-type': 'text/plain' },
      payload: 'a\u0000b',
      remoteAddress: remoteAddress(),
    });
    expect(expectRefused(res).details).toEqual([{ field: 'body', message: 'contains a NUL character' }]);
  });
});

describe('POST /api/v1/auth/login_reason behind the guard', () => {
  it('answers a NUL in loginReason with 400 invalid_characters and writes nothing; a clean reason still works', async () => {
    const tenant = await buildTenant(t.db);
    const user = await buildUser(t.db, tenant.id, { role: 'admin' });
    const { token } = await buildSession(t.db, user, { loginReasonRequired: true });
    const send = (loginReason: string) =>
      t.app.inject({
        method: 'POST',
        url: AUTH_API.loginReason,
        headers: CSRF,
        cookies: { [SESSION_COOKIE]: token },
        payload: { loginReason },
      });
    const refused = await send('Ticket\u00004711');
    const body = expectRefused(refused);
    expect(body.details).toEqual([{ field: 'body.loginReason', message: 'contains a NUL character' }]);
    const reasons = () =>
      t.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, 'Login-Reason'), eq(auditLog.actorUserId, user.id)));
    expect(await reasons()).toHaveLength(0);

    const ok = await send('Ticket 4711');
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ success: true });
    expect(await reasons()).toHaveLength(1);
  });
});

describe('answerFrameworkError (Fastify frameworkErrors option)', () => {
  it('answers a path the router cannot decode with 400 invalid_characters in the one error shape', async () => {
    const bare = Fastify({ frameworkErrors: answerFrameworkError, genReqId: () => 'req-1' });
    bare.get('/api/v1/:type/user_response', async () => ({ reached: true }));
    const res = await bare.inject({ method: 'GET', url: '/api/v1/%FF/user_response' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['x-request-id']).toBe('req-1');
    expect(res.json()).toEqual({
      statusCode: 400,
      code: 'invalid_characters',
      message: 'path is not valid UTF-8',
      details: [{ field: 'path', message: 'is not valid UTF-8' }],
      reqId: 'req-1',
    });
    await bare.close();
  });
});
