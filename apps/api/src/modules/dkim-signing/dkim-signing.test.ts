import fs from 'node:fs';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import {
  DKIM_SIGNING_API,
  type DkimSigningDomain,
  dkimSigningChangeResponseSchema,
  dkimSigningResponseSchema,
} from '@moat/contracts/dkim-signing';
import { type DkimResponse, DMARC_API } from '@moat/contracts/dmarc';
import { and, eq } from 'drizzle-orm';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../cli/commands.ts';
import { auditLog, dkimSigningKeys, tenantDomains } from '../../db/schema.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { type RspamdDaemon, startRspamd } from '../../test/daemons/rspamd.ts';
import { startDnsServer, type TestZone } from '../../test/dns-server.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import { createDkimSigner, DKIM_KEY_PURPOSE } from './dkim-signer.ts';
import { createDkimSigningRepo } from './dkim-signing.repo.ts';

/** What DNS serves in these tests; a test publishes a key by adding its record here. */
const zone: TestZone = {};
/** A record as a DNS host publishes a long value: strings of at most 255 characters. */
const publish = (name: string, value: string) => {
  zone[name] = { TXT: [value.match(/.{1,255}/g)!] };
};

const message = (from: string) =>
  Buffer.from(
    [
      `From: Ana <${from}>`,
      'To: bo@outside.test',
      'Subject: The quarterly figures',
      'Date: Mon, 07 Dec 2026 10:00:00 +0000',
      `Message-ID: <${Math.random().toString(36).slice(2)}@acme.test>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Here are the figures, as promised.',
      '',
    ].join('\r\n'),
  );

/** mailauth's verdict on each signature, asking the test zone for keys. */
async function verify(signed: Buffer) {
  const { results } = await dkimVerify(signed, {
    resolver: async (name: string, type: string) => {
      const found = type === 'TXT' ? zone[name]?.TXT : undefined;
      if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return found;
    },
  } as Parameters<typeof dkimVerify>[1]);
  return results.map((r) => ({
    result: r.status.result,
    domain: r.signingDomain,
    selector: String(r.selector),
    algo: (r as { algo?: string }).algo,
  }));
}

describe('DKIM signing keys and outbound signatures', () => {
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  let admin: Record<string, string>;
  let user: Record<string, string>;
  let tenantId: string;
  let otherTenantId: string;
  let now = new Date('2026-12-07T10:00:00Z');
  const clock = { now: () => now };

  beforeAll(async () => {
    dns = await startDnsServer(zone);
    t = await buildTestApp({ env: { DNS_SERVERS: dns.address }, clock });
    const tenant = await buildTenant(t.db, { domain: 'acme.test' });
    tenantId = tenant.id;
    await t.db.insert(tenantDomains).values({ tenantId, domain: 'acme-mail.test' });
    const a = await buildUser(t.db, tenantId, { email: 'admin@acme.test', role: 'admin' });
    admin = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, a)).token}`, ...CSRF };
    const u = await buildUser(t.db, tenantId, { email: 'ana@acme.test' });
    user = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, u)).token}`, ...CSRF };
    // Another tenant's domain, which this tenant's admin may not touch.
    otherTenantId = (await buildTenant(t.db, { domain: 'other.test' })).id;
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, headers = admin) =>
    t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  const at = (path: string, domain: string) => path.replace(':domain', encodeURIComponent(domain));
  const changed = (body: unknown): DkimSigningDomain => {
    const parsed = dkimSigningChangeResponseSchema.safeParse(body);
    if (!parsed.success) throw new Error(`not a domain: ${JSON.stringify(body)}`);
    return parsed.data;
  };
  const signer = () => createDkimSigner({ repo: createDkimSigningRepo(t.db), serverKey: t.serverKey, clock });

  it('makes an RSA 2048 key sealed on the server, shows its record, and warns until DNS shows it', async () => {
    const empty = dkimSigningResponseSchema.parse((await call('GET', DKIM_SIGNING_API.list)).json());
    expect(empty.domains.map((d) => [d.domain, d.enabled, d.keys.length])).toEqual([
      ['acme.test', false, 0],
      ['acme-mail.test', false, 0],
    ]);

    const made = await call('POST', at(DKIM_SIGNING_API.keys, 'acme.test'), {});
    expect(made.statusCode).toBe(200);
    const domain = changed(made.json());
    expect(domain.keys).toHaveLength(1);
    const key = domain.keys[0]!;
    expect(key).toMatchObject({
      selector: 'moat1',
      algorithm: 'rsa-sha256',
      bits: 2048,
      state: 'active',
      recordName: 'moat1._domainkey.acme.test',
      published: 'no',
    });
    expect(key.recordValue).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]{300,}={0,2}$/);
    expect(domain.warnings.join(' ')).toContain('not visible in DNS yet');

    // The private key is stored sealed, never in the clear; the server key opens it.
    const [row] = await t.db.select().from(dkimSigningKeys).where(eq(dkimSigningKeys.selector, 'moat1'));
    expect(row!.privateKey).toMatch(/^v1\./);
    expect(row!.privateKey).not.toContain('PRIVATE KEY');
    expect(t.serverKey.decrypt(DKIM_KEY_PURPOSE, row!.privateKey)).toContain('BEGIN PRIVATE KEY');

    // DKIM Management's check asks DNS for Moat's selector, and its plan says to publish that key.
    const checked = (await call('GET', `${DMARC_API.dkim}?domain=acme.test`)).json() as DkimResponse;
    expect(checked.domains[0]!.plan.publish).toEqual({
      code: 'publish',
      name: 'moat1._domainkey.acme.test',
      value: key.recordValue,
      days: null,
    });

    // A second RSA key while one exists is refused, and changes nothing.
    const again = await call('POST', at(DKIM_SIGNING_API.keys, 'acme.test'), { algorithm: 'rsa-sha256' });
    expect(again.statusCode).toBe(409);
    expect(await t.db.select().from(dkimSigningKeys)).toHaveLength(1);
  });

  it('turns signing on with a warning (not a refusal) while the record is missing, and signs', async () => {
    const on = await call('PUT', at(DKIM_SIGNING_API.signing, 'acme.test'), { enabled: true });
    expect(on.statusCode).toBe(200);
    const domain = changed(on.json());
    expect(domain.enabled).toBe(true);
    expect(domain.warnings.join(' ')).toContain('receivers fail DKIM');

    const key = domain.keys[0]!;
    publish(key.recordName, key.recordValue);
    const listed = dkimSigningResponseSchema.parse((await call('GET', DKIM_SIGNING_API.list)).json());
    const acme = listed.domains.find((d) => d.domain === 'acme.test')!;
    expect(acme.keys[0]!.published).toBe('yes');
    expect(acme.warnings).toEqual([]);
    const checked = (await call('GET', `${DMARC_API.dkim}?domain=acme.test`)).json() as DkimResponse;
    expect(checked.domains[0]!.selectors.map((s) => [s.selector, s.lookup, s.key?.bits])).toEqual([
      ['moat1', 'found', 2048],
    ]);

    const { message: signed, selectors } = await signer().sign(
      message('ana@acme.test'),
      'acme.test',
      tenantId,
    );
    expect(selectors).toEqual(['moat1']);
    const header = signed.toString().split('\r\n\r\n')[0]!;
    expect(header).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=acme\.test;/);
    const signedFields = /\bh=([^;]*);/
      .exec(header)![1]!
      .split(':')
      .map((f) => f.trim().toLowerCase());
    expect(signedFields.sort()).toEqual(
      ['content-type', 'date', 'from', 'message-id', 'mime-version', 'subject', 'to'].sort(),
    );
    expect(await verify(signed)).toEqual([
      { result: 'pass', domain: 'acme.test', selector: 'moat1', algo: 'rsa-sha256' },
    ]);

    // A subdomain's mail is signed by its parent (relaxed alignment); other domains are not signed.
    const sub = await signer().sign(message('ana@eu.acme.test'), 'eu.acme.test', tenantId);
    expect((await verify(sub.message))[0]).toMatchObject({ result: 'pass', domain: 'acme.test' });
    for (const from of ['acme-mail.test', 'other.test', 'notacme.test']) {
      const plain = message(`x@${from}`);
      const out = await signer().sign(plain, from, tenantId);
      expect(out.selectors).toEqual([]);
      expect(out.message.equals(plain)).toBe(true);
    }

    // Another tenant's mail is never signed with this tenant's keys, whatever its From says.
    expect((await signer().sign(message('x@acme.test'), 'acme.test', otherTenantId)).selectors).toEqual([]);

    // A signature breaks when the body or a signed header is changed in transit.
    const tampered = Buffer.from(signed.toString().replace('as promised', 'as agreed'));
    expect((await verify(tampered))[0]!.result).not.toBe('pass');
  });

  it('signs with Ed25519 beside RSA when the domain has both keys', async () => {
    const made = changed(
      (await call('POST', at(DKIM_SIGNING_API.keys, 'acme.test'), { algorithm: 'ed25519-sha256' })).json(),
    );
    const ed = made.keys.find((k) => k.algorithm === 'ed25519-sha256')!;
    expect(ed).toMatchObject({ selector: 'moated1', bits: 256, state: 'active' });
    expect(ed.recordValue).toMatch(/^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/);
    publish(ed.recordName, ed.recordValue);
    const { message: signed } = await signer().sign(message('ana@acme.test'), 'acme.test', tenantId);
    expect((await verify(signed)).sort((a, b) => a.selector.localeCompare(b.selector))).toEqual([
      { result: 'pass', domain: 'acme.test', selector: 'moat1', algo: 'rsa-sha256' },
      { result: 'pass', domain: 'acme.test', selector: 'moated1', algo: 'ed25519-sha256' },
    ]);
  });

  it('rotates with a second selector and no gap: the old key signs until the switch, then stays published', async () => {
    const started = changed((await call('POST', at(DKIM_SIGNING_API.rotate, 'acme.test'), {})).json());
    const next = started.keys.find((k) => k.state === 'pending')!;
    expect(next.selector).toBe('moat2');
    expect(started.warnings.join(' ')).toContain('The next key moat2 is not visible in DNS yet');
    // During the rotation, mail is still signed with the current key.
    expect((await signer().sign(message('a@acme.test'), 'acme.test', tenantId)).selectors).toContain('moat1');
    // A second rotation at once is refused.
    expect((await call('POST', at(DKIM_SIGNING_API.rotate, 'acme.test'), {})).statusCode).toBe(409);

    // Finishing before DNS shows the next key is refused: the current key keeps signing.
    const early = await call('POST', at(DKIM_SIGNING_API.finishRotation, 'acme.test'), {});
    expect(early.statusCode).toBe(409);
    expect(early.json().message).toContain(
      'DNS does not show the next key at moat2._domainkey.acme.test yet',
    );
    expect((await signer().sign(message('a@acme.test'), 'acme.test', tenantId)).selectors).toContain('moat1');

    publish(next.recordName, next.recordValue);
    now = new Date('2026-12-07T10:20:00Z');
    const done = changed((await call('POST', at(DKIM_SIGNING_API.finishRotation, 'acme.test'), {})).json());
    const bySelector = Object.fromEntries(done.keys.map((k) => [k.selector, k]));
    expect(bySelector.moat1).toMatchObject({ state: 'retired', removeAfter: '2026-12-14' });
    expect(bySelector.moat2).toMatchObject({ state: 'active', published: 'yes' });
    expect(done.warnings.join(' ')).toContain('Keep the retired key moat1 published');
    const after = await signer().sign(message('a@acme.test'), 'acme.test', tenantId);
    expect(after.selectors.sort()).toEqual(['moat2', 'moated1']);
    expect((await verify(after.message)).every((r) => r.result === 'pass')).toBe(true);

    // Finishing again, with no rotation under way, is refused.
    expect((await call('POST', at(DKIM_SIGNING_API.finishRotation, 'acme.test'), {})).statusCode).toBe(409);

    const actions = await t.db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, tenantId)));
    expect(actions.map((a) => a.action)).toEqual(
      expect.arrayContaining([
        'dkim.key_created',
        'dkim.signing_enabled',
        'dkim.rotation_started',
        'dkim.rotation_finished',
      ]),
    );
  });

  it('refuses what is not the admin’s to change, with a clear 4xx, changing nothing', async () => {
    const before = await t.db.select().from(dkimSigningKeys);
    expect((await call('POST', at(DKIM_SIGNING_API.keys, 'other.test'), {})).statusCode).toBe(404);
    expect(
      (await call('PUT', at(DKIM_SIGNING_API.signing, 'nowhere.test'), { enabled: true })).statusCode,
    ).toBe(404);
    expect(
      (await call('POST', at(DKIM_SIGNING_API.keys, 'acme-mail.test'), { algorithm: 'dsa' })).statusCode,
    ).toBe(400);
    expect(
      (await call('PUT', at(DKIM_SIGNING_API.signing, 'acme.test'), { enabled: 'yes' })).statusCode,
    ).toBe(400);
    expect((await call('POST', at(DKIM_SIGNING_API.rotate, 'acme-mail.test'), {})).statusCode).toBe(409);
    expect((await call('GET', DKIM_SIGNING_API.list, undefined, user)).statusCode).toBe(403);
    expect((await call('POST', at(DKIM_SIGNING_API.keys, 'acme-mail.test'), {}, user)).statusCode).toBe(403);
    expect(await t.db.select().from(dkimSigningKeys)).toEqual(before);
  });

  it('tenant:dkim prints the record to publish (making a key), and --enable warns while DNS lacks it', async () => {
    const ctx = {
      db: t.db,
      config: { publicUrl: 'http://localhost', dnsServers: [dns.address] },
      clock,
      cwd: process.cwd(),
      serverKey: t.serverKey,
    };
    const printed = await runCommand(
      ['tenant:dkim', '--tenant', 'acme.test', '--domain', 'acme-mail.test'],
      ctx,
    );
    expect(printed.exitCode).toBe(0);
    expect(printed.stdout).toContain('acme-mail.test: signing off');
    expect(printed.stdout).toContain('TXT name:  moat1._domainkey.acme-mail.test');
    expect(printed.stdout).toMatch(/TXT value: v=DKIM1; k=rsa; p=[A-Za-z0-9+/]{300,}/);

    const enabled = await runCommand(['tenant:dkim', '--tenant', 'acme-mail.test', '--enable'], ctx);
    expect(enabled.exitCode).toBe(0);
    expect(enabled.stdout).toContain('acme-mail.test: signing on');
    expect(enabled.stdout).toContain('warning: The RSA key moat1 is not visible in DNS yet');

    // The server signs with what the CLI made (the same sealed key).
    const out = await signer().sign(message('x@acme-mail.test'), 'acme-mail.test', tenantId);
    expect(out.selectors).toEqual(['moat1']);

    const wrong = await runCommand(['tenant:dkim', '--tenant', tenantId, '--enable'], ctx);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toContain('say which with --domain');
    const bad = await runCommand(
      ['tenant:dkim', '--tenant', 'acme.test', '--domain', 'acme.test', '--rotate', 'dsa'],
      ctx,
    );
    expect(bad.exitCode).toBe(2);
  });
});

const rspamdInstalled = fs.existsSync('/usr/bin/rspamd');

describe.skipIf(!rspamdInstalled && process.env.CI !== 'true')(
  "rspamd's DKIM check of Moat's signature",
  () => {
    let daemon: RspamdDaemon;
    let t: Awaited<ReturnType<typeof buildTestApp>>;
    let tenantId: string;
    const rzone: TestZone = { 'outside.test': { MX: [{ priority: 10, exchange: 'mx.outside.test' }] } };

    beforeAll(async () => {
      daemon = await startRspamd({ redisDb: 11, zone: rzone, offline: true });
      t = await buildTestApp();
      tenantId = (await buildTenant(t.db, { domain: 'acme.test' })).id;
    });
    afterAll(async () => {
      await t?.close();
      await daemon?.stop();
    });

    it('verifies against the published key (R_DKIM_ALLOW), and rejects a tampered copy', async () => {
      const domain = await t.app.services.dkimSigning.setSigning(tenantId, 'acme.test', true, {
        type: 'cli',
      });
      const key = domain.keys[0]!;
      rzone[key.recordName] = { TXT: [key.recordValue.match(/.{1,255}/g)!] };
      const signer = createDkimSigner({
        repo: createDkimSigningRepo(t.db),
        serverKey: t.serverKey,
        clock: { now: () => new Date() },
      });
      const { message: signed } = await signer.sign(message('ana@acme.test'), 'acme.test', tenantId);

      const check = async (body: Buffer) => {
        const response = await fetch(`${daemon.url}/checkv2`, {
          method: 'POST',
          headers: {
            From: 'ana@acme.test',
            Rcpt: 'bo@outside.test',
            IP: '192.0.2.10',
            Helo: 'mail.acme.test',
          },
          body: new Uint8Array(body),
        });
        return Object.keys(((await response.json()) as { symbols: Record<string, unknown> }).symbols);
      };
      expect(await check(signed)).toContain('R_DKIM_ALLOW');
      expect(await check(Buffer.from(signed.toString().replace('as promised', 'as agreed')))).toContain(
        'R_DKIM_REJECT',
      );
    });
  },
);
