import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { and, eq } from 'drizzle-orm';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, linkClicks, mailLog, outbox, securityEvents, senderLists } from '../../db/schema.ts';
import { ServerKey } from '../../lib/server-key.ts';
import { parseMessage } from '../../mail/parse.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { BROWSER_VISIT as BROWSER } from '../../test/browser.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';
import { noDns } from '../../test/installation.ts';
import { createLinkTokens } from './link-token.ts';

const PUBLIC_URL = 'https://moat.test';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let smtp: ReturnType<typeof testSmtpIn>;
let port: number;
let tenantId: string;
let admin: Record<string, string>;

beforeAll(async () => {
  t = await buildTestApp({ dnsResolver: noDns as never, env: { PUBLIC_URL, SMTP_HOSTNAME: 'mx.moat.test' } });
  const tenant = await buildTenant(t.db, { domain: 'acme.test' });
  tenantId = tenant.id;
  await buildUser(t.db, tenant.id, { email: 'ana@acme.test' });
  await buildUser(t.db, tenant.id, { email: 'ben@acme.test' });
  const user = await buildUser(t.db, tenant.id, { email: 'admin@acme.test', role: 'admin' });
  const session = await buildSession(t.db, user);
  admin = { cookie: `${SESSION_COOKIE}=${session.token}`, ...CSRF };
  smtp = testSmtpIn({ db: t.db, clock: t.app.clock, log: t.app.log });
  port = await smtp.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await smtp.close();
  await t.close();
});

async function deliver(options: SendMailOptions) {
  await nodemailer
    .createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: 'client.test' })
    .sendMail({ from: 'Bob <bob@outside.test>', to: 'ana@acme.test', ...options });
  await t.app.services.gateway.processor.drain();
  await t.app.services.clickTime.flush();
}

/** The copy delivered to a recipient, parsed, with its Mail Explorer row. */
async function copyOf(subject: string, recipient = 'ana@acme.test') {
  const [log] = await t.db
    .select()
    .from(mailLog)
    .where(and(eq(mailLog.subject, subject), eq(mailLog.recipient, recipient)));
  const [mail] = await t.db
    .select()
    .from(outbox)
    .where(eq(outbox.idempotencyKey, `${log!.inboundId}:${recipient}`));
  return { log: log!, parsed: await parseMessage(Buffer.from(mail!.raw!)) };
}

const rewritten = (html: string | null) =>
  [...(html ?? '').matchAll(/href="(https:\/\/moat\.test\/l\/[^"]+)"/g)].map((m) =>
    m[1]!.replace(/&amp;/g, '&'),
  );

/** A message the engines flag (suspicious: two deceptive links), delivered with a banner by default. */
const FLAGGED = {
  html: '<p>Your parcel: <a href="http://192.0.2.7/login">Log in</a> or <a href="https://evil.test/x">https://bank.test/account</a></p>',
};

async function click(
  link: string,
  headers: Record<string, string> = BROWSER,
  method: 'GET' | 'HEAD' = 'GET',
) {
  const res = await t.app.inject({ method, url: link.slice(PUBLIC_URL.length), headers });
  await t.app.services.clickTime.flush();
  return res;
}

describe('click-time protection: rewriting at delivery', () => {
  it('rewrites the links of mail delivered with a verdict, one token per recipient, and leaves clean mail alone', async () => {
    await deliver({ subject: 'Flagged links', to: 'ana@acme.test, ben@acme.test', ...FLAGGED });
    await deliver({ subject: 'Clean links', html: '<a href="https://news.example/">news</a>' });
    const ana = await copyOf('Flagged links');
    expect(ana.log).toMatchObject({ verdict: 'suspicious', action: 'delivered_banner' });
    const links = rewritten(ana.parsed.html);
    expect(links).toHaveLength(2);
    expect(new URL(links[0]!).searchParams.get('u')).toBe('http://192.0.2.7/login');
    // Ben's copy has tokens of its own; neither copy names its recipient anywhere in its links.
    const ben = rewritten((await copyOf('Flagged links', 'ben@acme.test')).parsed.html);
    expect(ben[0]).not.toBe(links[0]);
    // (Whole names only: a random token holds a short run like "ana" now and then.)
    for (const link of [...links, ...ben]) {
      const plain = decodeURIComponent(link);
      for (const name of ['ana@acme.test', 'ben@acme.test', 'acme.test', btoa('ana@acme.test').slice(0, 12)])
        expect(plain).not.toContain(name);
    }
    // The trace's evidence still names the original links; the clean message kept its own.
    const clean = await copyOf('Clean links');
    expect(clean.parsed.html).toContain('href="https://news.example/"');
  });

  it('rewrites clean mail too when the tenant chooses it, but never a host the tenant allowed', async () => {
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/click-time/settings',
      headers: admin,
      payload: { rewriteFlagged: true, rewriteClean: true, allowContinue: true },
    });
    expect(put.statusCode).toBe(200);
    await t.db
      .insert(senderLists)
      .values({ tenantId, list: 'allow', kind: 'domain', scope: 'click_time', value: 'intranet.test' });
    try {
      await deliver({
        subject: 'Clean rewritten',
        html: '<a href="https://news.example/a">news</a> <a href="https://wiki.intranet.test/page">wiki</a>',
        text: 'news: https://news.example/a',
      });
      const { parsed } = await copyOf('Clean rewritten');
      expect(rewritten(parsed.html)).toHaveLength(1);
      expect(parsed.html).toContain('href="https://wiki.intranet.test/page"');
      expect(parsed.text).toMatch(/news: https:\/\/moat\.test\/l\/\S+\?u=https%3A%2F%2Fnews\.example%2Fa/);
      const [entry] = await t.db
        .select()
        .from(auditLog)
        .where(eq(auditLog.action, 'click_time.settings_changed'));
      expect(entry).toMatchObject({ tenantId });
    } finally {
      await t.app.inject({
        method: 'PUT',
        url: '/api/v1/click-time/settings',
        headers: admin,
        payload: { rewriteFlagged: true, rewriteClean: false, allowContinue: true },
      });
      await t.db.delete(senderLists).where(eq(senderLists.value, 'intranet.test'));
    }
  });

  it('rewrites the links of a copy delivered without its attachments, but not Moat’s own restore link', async () => {
    await deliver({
      subject: 'Flagged with a file',
      ...FLAGGED,
      attachments: [
        { filename: 'label.pdf', content: Buffer.from('%PDF-1.4 label'), contentType: 'application/pdf' },
      ],
    });
    const { log, parsed } = await copyOf('Flagged with a file');
    expect(log).toMatchObject({ verdict: 'suspicious', action: 'attachments_removed' });
    expect(parsed.attachments).toHaveLength(0);
    const links = rewritten(parsed.html);
    expect(links.map((l) => new URL(l).searchParams.get('u'))).toEqual([
      'http://192.0.2.7/login',
      'https://evil.test/x',
    ]);
    // The plain-text part the note is written into is rewritten too.
    expect(parsed.text).toMatch(/or https:\/\/moat\.test\/l\/\S+\?u=https%3A%2F%2Fbank\.test%2Faccount/);
    // The note's own restore link is Moat's page, not a link to judge.
    expect(parsed.text).toMatch(/Restore the original: https:\/\/moat\.test\/#\//);
    // The rewritten link works like any other: it opens its token.
    const res = await click(links[1]!);
    expect(res.statusCode).toBe(303);
  });

  it('refuses settings that are not the three choices', async () => {
    for (const payload of [{}, { rewriteFlagged: 'yes', rewriteClean: false, allowContinue: true }]) {
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/v1/click-time/settings',
        headers: admin,
        payload,
      });
      expect(res.statusCode).toBe(400);
    }
  });
});

describe('click-time protection: the click', () => {
  it('redirects a clean link at once and records who clicked it, a scanner apart', async () => {
    const [clean] = rewritten((await copyOf('Clean rewritten')).parsed.html);
    const res = await click(clean!);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('https://news.example/a');
    expect(res.headers['cache-control']).toBe('no-store');
    // Safe Links' prefetch and a HEAD request are scanners: recorded, never as a person's click.
    await click(clean!, { 'user-agent': 'Mozilla/5.0 (compatible; SafeLinks scanner)', accept: '*/*' });
    await click(clean!, BROWSER, 'HEAD');
    const rows = await t.db.select().from(linkClicks).where(eq(linkClicks.url, 'https://news.example/a'));
    expect(rows.map((r) => [r.recipient, r.outcome, r.scanner])).toEqual(
      expect.arrayContaining([
        ['ana@acme.test', 'redirected', false],
        ['ana@acme.test', 'redirected', true],
      ]),
    );
    expect(rows).toHaveLength(3);
  });

  it('answers over HTTP before Fastify’s cycle as the route does: headers, record, metrics, and the rest left to the route', async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const [clean] = rewritten((await copyOf('Clean rewritten')).parsed.html);
    const [flagged] = rewritten((await copyOf('Flagged links', 'ben@acme.test')).parsed.html);
    const path = (link: string) => link.slice(PUBLIC_URL.length);
    const get = async (p: string, method = 'GET') => {
      const res = await fetch(`${address}${p}`, { method, headers: BROWSER, redirect: 'manual' });
      await t.app.services.clickTime.flush();
      return res;
    };
    const before = await t.db.select().from(linkClicks).where(eq(linkClicks.url, 'https://news.example/a'));

    const res = await get(path(clean!));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://news.example/a');
    for (const [name, value] of [
      ['cache-control', 'no-store'],
      ['referrer-policy', 'no-referrer'],
      ['x-robots-tag', 'noindex, nofollow'],
      ['x-content-type-options', 'nosniff'],
    ])
      expect(res.headers.get(name!), name).toBe(value);
    // A redirect has no document: no document policies on it.
    expect(res.headers.get('content-security-policy')).toBeNull();
    const after = await t.db.select().from(linkClicks).where(eq(linkClicks.url, 'https://news.example/a'));
    expect(after).toHaveLength(before.length + 1);
    expect(after.find((c) => !before.some((b) => b.id === c.id))).toMatchObject({
      recipient: 'ana@acme.test',
      outcome: 'redirected',
      scanner: false,
      clientIp: '127.0.0.1',
    });

    // A flagged link goes to the warning page; a changed one gets the plain page, nothing opened.
    const warned = await get(path(flagged!));
    expect(warned.headers.get('location')).toMatch(/^\/#\/email-actions\/link\?v=suspicious&/);
    const changed = await get(path(flagged!).replace('?u=', '?u=x'));
    expect(changed.status).toBe(400);
    expect(await changed.text()).toContain('This link is not valid');
    expect(changed.headers.get('content-security-policy')).toContain("default-src 'self'");
    // A HEAD, a missing or doubled URL are the route's: a scanner's visit, or the route's 400.
    expect((await get(path(clean!), 'HEAD')).status).toBe(303);
    expect((await get(path(clean!).split('?')[0]!)).status).toBe(400);
    expect((await get(`${path(clean!)}&u=https%3A%2F%2Fattacker.example%2F`)).status).toBe(400);
    // Counted under the route's pattern, as every other answer is.
    const counted = (await t.app.services.metrics.httpRequests.get()).values;
    expect(counted).toContainEqual(
      expect.objectContaining({ labels: { method: 'GET', route: '/l/*', status: '303' } }),
    );
  });

  it('refuses a changed token or URL, and a token made with another key, without redirecting', async () => {
    const [, clean] = rewritten((await copyOf('Flagged links')).parsed.html);
    const url = new URL(clean!);
    const token = url.pathname.slice(3);
    const flipped = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`;
    const other = createLinkTokens(ServerKey.inMemory()).seal(
      { tenantId, inboundId: '00000000-0000-4000-8000-000000000000', recipient: 'ana@acme.test', index: 0 },
      'https://evil.test/x',
    );
    for (const path of [
      `/l/${flipped}${url.search}`,
      `/l/${token}?u=${encodeURIComponent('https://attacker.example/')}`,
      `/l/${token}`,
      `/l/${other}?u=${encodeURIComponent('https://evil.test/x')}`,
      `/l/x?u=${encodeURIComponent('https://evil.test/x')}`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url: path, headers: BROWSER });
      expect(res.statusCode, path).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.body).toContain('This link is not valid');
    }
  });

  it('warns about a link of a suspicious message, and lets a person (never a scanner) go on past the warning', async () => {
    const [ip] = rewritten((await copyOf('Flagged links')).parsed.html);
    const res = await click(ip!);
    expect(res.statusCode).toBe(303);
    const page = new URL(res.headers.location as string, PUBLIC_URL);
    expect(page.hash).toMatch(/^#\/email-actions\/link\?/);
    const params = new URLSearchParams(page.hash.slice(page.hash.indexOf('?') + 1));
    expect(params.get('v')).toBe('suspicious');
    const query = { t: params.get('t')!, u: params.get('u')! };
    const check = await t.app.inject({ method: 'GET', url: '/api/v1/public/links/check', query });
    expect(check.json()).toMatchObject({ verdict: 'suspicious', host: '192.0.2.7', canContinue: true });
    expect(check.json().reasons.join()).toContain('Link to an IP address');
    const scanner = await t.app.inject({
      method: 'POST',
      url: '/api/v1/public/links/continue',
      headers: { ...CSRF, 'user-agent': 'python-requests/2.31' },
      payload: query,
    });
    expect(scanner.statusCode).toBe(403);
    const go = await t.app.inject({
      method: 'POST',
      url: '/api/v1/public/links/continue',
      headers: { ...CSRF, ...BROWSER },
      payload: query,
    });
    expect(go.statusCode).toBe(200);
    expect(go.json()).toEqual({ url: 'http://192.0.2.7/login' });
    await t.app.services.clickTime.flush();
    const outcomes = await t.db
      .select()
      .from(linkClicks)
      .where(and(eq(linkClicks.host, '192.0.2.7'), eq(linkClicks.recipient, 'ana@acme.test')));
    expect(outcomes.map((c) => c.outcome).sort()).toEqual(['continued', 'warned']);
    const [event] = await t.db
      .select()
      .from(securityEvents)
      .where(and(eq(securityEvents.tenantId, tenantId), eq(securityEvents.type, 'click')));
    expect(event).toMatchObject({ recipient: 'ana@acme.test', severity: 'medium' });
    expect(event!.description).toContain('went on past the warning to http://192.0.2.7/login');
    // A bad question is a 400, not a page about some other link.
    const bad = await t.app.inject({
      method: 'GET',
      url: '/api/v1/public/links/check',
      query: { t: 'x', u: 'y' },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('blocks a link whose host the tenant blocked since, or whose message was found to be phishing since', async () => {
    const [ip, clean] = rewritten((await copyOf('Flagged links')).parsed.html);
    await t.db
      .insert(senderLists)
      .values({ tenantId, list: 'block', kind: 'domain', scope: 'click_time', value: 'evil.test' });
    try {
      const res = await click(clean!);
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toMatch(/#\/email-actions\/link\?v=malicious&/);
      const page = new URL(res.headers.location as string, PUBLIC_URL);
      const params = new URLSearchParams(page.hash.slice(page.hash.indexOf('?') + 1));
      const go = await t.app.inject({
        method: 'POST',
        url: '/api/v1/public/links/continue',
        headers: { ...CSRF, ...BROWSER },
        payload: { t: params.get('t'), u: params.get('u') },
      });
      expect(go.statusCode).toBe(403);
    } finally {
      await t.db.delete(senderLists).where(eq(senderLists.value, 'evil.test'));
    }
    const { log } = await copyOf('Flagged links');
    await t.db.update(mailLog).set({ verdict: 'phishing' }).where(eq(mailLog.inboundId, log.inboundId));
    // What a node read of the message is kept a few seconds; the writer on this node says it changed.
    t.app.services.caches.changed('mail_log');
    const res = await click(ip!);
    expect(res.headers.location).toMatch(/v=malicious/);
    const check = await t.app.inject({
      method: 'GET',
      url: '/api/v1/public/links/check',
      query: { t: new URL(ip!).pathname.slice(3), u: 'http://192.0.2.7/login' },
    });
    expect(check.json()).toMatchObject({ verdict: 'malicious', canContinue: false });
    expect(check.json().reasons).toEqual(['The message with this link was found to be phishing']);
    const blocked = await t.db
      .select()
      .from(securityEvents)
      .where(and(eq(securityEvents.type, 'click'), eq(securityEvents.severity, 'high')));
    expect(blocked.length).toBeGreaterThanOrEqual(2);
  });

  it('keeps a link working once its message has left Moat’s records, judged on the URL alone', async () => {
    const { log, parsed } = await copyOf('Flagged links', 'ben@acme.test');
    await t.db
      .delete(mailLog)
      .where(and(eq(mailLog.inboundId, log.inboundId), eq(mailLog.recipient, 'ben@acme.test')));
    const [, clean] = rewritten(parsed.html);
    const res = await click(clean!);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('https://evil.test/x');
  });
});

describe('click-time protection: who clicked', () => {
  it('lists the people who clicked a host, scanners left out unless asked for, for admins only', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/clicks?host=news.example',
      headers: admin,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.recipients).toBe(1);
    expect(body.items[0]).toMatchObject({
      recipient: 'ana@acme.test',
      url: 'https://news.example/a',
      outcome: 'redirected',
    });
    expect(body.items.every((c: { scanner: boolean }) => !c.scanner)).toBe(true);
    const all = await t.app.inject({
      method: 'GET',
      url: '/api/v1/clicks?host=news.example&scanners=true',
      headers: admin,
    });
    expect(all.json().total).toBeGreaterThan(body.total);
    expect([401, 403]).toContain((await t.app.inject({ method: 'GET', url: '/api/v1/clicks' })).statusCode);
    const bad = await t.app.inject({ method: 'GET', url: '/api/v1/clicks?message=nope', headers: admin });
    expect(bad.statusCode).toBe(400);
  });

  it('names the people who clicked through to a host in a high event when the admin blocks it later', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/exceptions',
      headers: admin,
      payload: { list: 'block', kind: 'domain', scope: 'click_time', value: 'news.example' },
    });
    expect(res.statusCode).toBe(200);
    const events = await t.db
      .select()
      .from(securityEvents)
      .where(and(eq(securityEvents.type, 'click'), eq(securityEvents.tenantId, tenantId)));
    const through = events.find((e) => e.description.includes('clicked through to news.example'));
    expect(through).toMatchObject({ severity: 'high', recipient: 'ana@acme.test' });
    expect(through!.description).toBe(
      '1 person clicked through to news.example before it was blocked: ana@acme.test',
    );
    // Its admins are emailed at once, the site written out defanged and never as a link.
    const [alert] = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.kind, 'alert_click_through'), eq(outbox.tenantId, tenantId)));
    expect(alert).toMatchObject({ subject: 'Moat: 1 person clicked through to a site that is now blocked' });
    expect(alert!.text).toContain('news[.]example was blocked');
    expect(alert!.text).toContain('ana@acme.test');
    expect(`${alert!.html}${alert!.text}`).not.toMatch(/news\.example/);
    expect(alert!.html).toContain('#/security-events?type=click');
  });

  it('does not apply a Click-Time entry to senders: mail from a blocked link host is still delivered', async () => {
    await t.db
      .insert(senderLists)
      .values({ tenantId, list: 'block', kind: 'domain', scope: 'click_time', value: 'outside.test' });
    await deliver({ subject: 'From a blocked link host', text: 'Hello' });
    const { log } = await copyOf('From a blocked link host');
    expect(log).toMatchObject({ verdict: 'clean', action: 'delivered' });
  });
});
