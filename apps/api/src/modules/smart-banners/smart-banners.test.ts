import type { Policy } from '@moat/contracts/policy';
import {
  BANNER_PALETTE,
  type BannerPreview,
  type BannerSamples,
  type SmartBanners,
  type SmartBannersInput,
} from '@moat/contracts/smart-banners';
import { and, desc, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, mailLog, outbox, securityTools, senderLists } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { parseMessage } from '../../mail/parse.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildQuarantinedMessage, buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';
import { Jar, login, postJson } from '../../test/sign-in.ts';

/**
 * User Interaction → Smart Banners: the banner each verdict gets, set here, is the banner the
 * gateway puts into the next message it delivers — read back from the delivered bytes.
 */

/** banners.test and partner.test prove themselves (SPF for the test client, with DMARC); nothing else has DNS. */
const dns = async (name: string, rr: string) => {
  for (const domain of ['banners.test', 'partner.test']) {
    if (name === domain && rr === 'TXT') return [['v=spf1 ip4:127.0.0.1 -all']];
    if (name === `_dmarc.${domain}` && rr === 'TXT') return [['v=DMARC1; p=none']];
  }
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

let t: Awaited<ReturnType<typeof buildTestApp>>;
let smtp: ReturnType<typeof testSmtpIn>;
let port: number;
let tenantId: string;
let otherTenantId: string;
let admin: Jar;
let plain: Jar;
let otherAdmin: Jar;
const password = 'admin password 1';

beforeAll(async () => {
  t = await buildTestApp({ dnsResolver: dns as never, env: { CAPTCHA_DIFFICULTY: '10' } });
  const tenant = await buildTenant(t.db, { domain: 'banners.test' });
  tenantId = tenant.id;
  const other = await buildTenant(t.db, { domain: 'elsewhere-banners.test' });
  otherTenantId = other.id;
  const passwordHash = await hashPassword(password);
  await buildUser(t.db, tenantId, { email: 'admin@banners.test', role: 'admin', passwordHash });
  await buildUser(t.db, tenantId, { email: 'ana@banners.test', role: 'user', passwordHash });
  await buildUser(t.db, otherTenantId, {
    email: 'admin@elsewhere-banners.test',
    role: 'admin',
    passwordHash,
  });
  // Suspicious for their link alone (a bare IP address): the anti-spam engine is off here.
  for (const id of [tenantId, otherTenantId])
    await t.db.insert(securityTools).values({ tenantId: id, name: 'anti_spam', state: 'disabled' });
  admin = new Jar();
  plain = new Jar();
  otherAdmin = new Jar();
  await login(t.app, admin, 'admin@banners.test', password);
  await login(t.app, plain, 'ana@banners.test', password);
  await login(t.app, otherAdmin, 'admin@elsewhere-banners.test', password);
  smtp = testSmtpIn({ db: t.db, clock: t.app.clock, log: t.app.log });
  port = await smtp.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await smtp.close();
  await t.close();
});

const URL = '/api/v1/smart_banners';
const get = (jar: Jar, url = URL) =>
  t.app.inject({ method: 'GET', url, cookies: jar.cookies, remoteAddress: jar.ip });
const put = (jar: Jar, body: unknown) => postJson(t.app, jar, URL, body, 'PUT');
const preview = (jar: Jar, body: unknown) => postJson(t.app, jar, `${URL}/preview`, body);

async function current(jar = admin): Promise<SmartBanners> {
  return (await get(jar)).json() as SmartBanners;
}
function inputOf(s: SmartBanners): SmartBannersInput {
  const v = (k: keyof SmartBanners['verdicts']) => {
    const { text, colour, subject_tag, banner_on_delivery } = s.verdicts[k];
    return { text, colour, subject_tag, banner_on_delivery };
  };
  return {
    verdicts: { phishing: v('phishing'), spam: v('spam'), suspicious: v('suspicious') },
    senders: s.senders,
  };
}

/** A suspicious message (a link to a bare IP address) through SMTP; its Mail Explorer row. */
async function sendSuspicious(subject: string, from = 'Bob <bob@outside.test>') {
  await nodemailer
    .createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: 'client.test' })
    .sendMail({
      from,
      to: 'ana@banners.test',
      subject,
      html: '<p>Hi</p><a href="http://192.0.2.7/login">Log in</a>',
    });
  await t.app.services.gateway.processor.drain();
  const [log] = await t.db.select().from(mailLog).where(eq(mailLog.subject, subject));
  return log!;
}

/** The bytes the gateway queued for Ana, parsed as her mail program would. */
async function delivered(log: { inboundId: string }) {
  const [mail] = await t.db
    .select()
    .from(outbox)
    .where(eq(outbox.idempotencyKey, `${log.inboundId}:ana@banners.test`));
  return { row: mail!, parsed: await parseMessage(Buffer.from(mail!.raw!)) };
}

describe('GET /api/v1/smart_banners', () => {
  it("answers each verdict's default banner in the policy's own terms", async () => {
    const res = await get(admin);
    expect(res.statusCode).toBe(200);
    const s = res.json() as SmartBanners;
    expect(s.verdicts.spam).toMatchObject({
      text: '',
      colour: 'yellow',
      subject_tag: '',
      action: 'deliver_banner',
      banner_on_delivery: true,
    });
    expect(s.verdicts.suspicious.action).toBe('strip');
    expect(s.verdicts.phishing.action).toBe('quarantine');
    expect(s.verdicts.suspicious.default_text).toMatch(/^Caution: this message looks suspicious/);
    expect(s.senders).toEqual({ skip_allow_listed: false, skip_internal: false });
  });

  it('is for admins only', async () => {
    expect((await get(plain)).statusCode).toBe(403);
    expect((await put(plain, inputOf(await current()))).statusCode).toBe(403);
    expect((await get(plain, `${URL}/samples`)).statusCode).toBe(403);
    expect(
      (await preview(plain, { message_id: null, verdict: 'spam', settings: inputOf(await current()) }))
        .statusCode,
    ).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: URL })).statusCode).toBe(403);
  });
});

describe('PUT /api/v1/smart_banners', () => {
  it('refuses markup, links, addresses, long tags and unknown colours with 400, changing nothing', async () => {
    const before = await current();
    const base = inputOf(before);
    const withSpam = (spam: Partial<SmartBannersInput['verdicts']['spam']>) => ({
      ...base,
      verdicts: { ...base.verdicts, spam: { ...base.verdicts.spam, ...spam } },
    });
    const bad: Array<[unknown, string]> = [
      [withSpam({ text: 'Careful <b>now</b>' }), 'wording_markup'],
      [withSpam({ text: 'Check https://evil.example/login first' }), 'wording_link'],
      [withSpam({ text: 'Ask it-help@banners.test' }), 'wording_link'],
      [withSpam({ text: 'See www.intranet first' }), 'wording_link'],
      [withSpam({ text: 'Go to banners.test/help' }), 'wording_link'],
      [withSpam({ text: 'x'.repeat(501) }), 'wording_too_long'],
      [withSpam({ text: 'two\nlines' }), 'wording_markup'],
      [withSpam({ subject_tag: '[A very long tag for a subject]' }), 'wording_too_long'],
      [withSpam({ colour: 'pink' as 'red' }), ''],
      [{ ...base, senders: { skip_allow_listed: true } }, ''],
      [{ ...base, extra: true }, ''],
    ];
    for (const [body, code] of bad) {
      const res = await put(admin, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      if (code) expect(JSON.stringify(res.json().details)).toContain(code);
    }
    expect(await current()).toEqual(before);
  });

  it('saves every banner, audits before and after, and keeps other tenants apart', async () => {
    const before = await current();
    const input = inputOf(before);
    input.verdicts.suspicious = {
      text: 'IT says: this one looks odd, & check twice.',
      colour: 'blue',
      subject_tag: '[Suspicious]',
      banner_on_delivery: true,
    };
    const res = await put(admin, input);
    expect(res.statusCode).toBe(200);
    expect((res.json() as SmartBanners).verdicts.suspicious).toMatchObject(input.verdicts.suspicious);
    expect((await current()).verdicts.suspicious.colour).toBe('blue');
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.action, 'smart_banners.update')))
      .orderBy(desc(auditLog.createdAt));
    expect(entry).toMatchObject({ actorEmail: 'admin@banners.test', targetType: 'tenant' });
    const details = entry!.details as {
      before: { verdicts: { suspicious: { colour: string } } };
      after: typeof input;
    };
    expect(details.before.verdicts.suspicious.colour).toBe('orange');
    expect(details.after.verdicts.suspicious.subject_tag).toBe('[Suspicious]');
    // The other tenant still has the defaults.
    expect((await current(otherAdmin)).verdicts.suspicious).toMatchObject({ colour: 'orange', text: '' });
  });

  it("switches a delivered verdict's banner off and on as the policy's action, audited", async () => {
    const input = inputOf(await current());
    input.verdicts.spam.banner_on_delivery = false;
    expect((await put(admin, input)).statusCode).toBe(200);
    const policy = (await get(admin, '/api/v1/policy')).json() as Policy;
    expect(policy.verdicts.spam.action).toBe('deliver');
    // A verdict the policy holds is not changed by the switch.
    input.verdicts.phishing.banner_on_delivery = false;
    expect((await put(admin, input)).statusCode).toBe(200);
    expect(((await get(admin, '/api/v1/policy')).json() as Policy).verdicts.phishing.action).toBe(
      'quarantine',
    );
    const entries = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.action, 'smart_banners.update')));
    const switched = entries.map((e) => (e.details as { actions?: Record<string, unknown> }).actions?.spam);
    expect(switched).toContainEqual({ from: 'deliver_banner', to: 'deliver' });
    input.verdicts.spam.banner_on_delivery = true;
    expect((await put(admin, input)).statusCode).toBe(200);
    expect(((await get(admin, '/api/v1/policy')).json() as Policy).verdicts.spam.action).toBe(
      'deliver_banner',
    );
  });
});

describe('the gateway delivers exactly the banner that is set', () => {
  it('puts the words, colour and subject tag of the verdict into the next message', async () => {
    const log = await sendSuspicious('Parcel waiting');
    expect(log).toMatchObject({ verdict: 'suspicious', action: 'delivered_banner' });
    const { row, parsed } = await delivered(log);
    expect(parsed.subject).toBe('[Suspicious] Parcel waiting');
    expect(row.subject).toBe('[Suspicious] Parcel waiting');
    expect(parsed.html).toContain('IT says: this one looks odd, &amp; check twice.');
    expect(parsed.html).toContain(`border:2px solid ${BANNER_PALETTE.blue.border}`);
    expect(parsed.html).toContain(`background:${BANNER_PALETTE.blue.background}`);
    expect(parsed.html).not.toContain('Caution: this message looks suspicious');
    expect(parsed.text.startsWith('IT says: this one looks odd, & check twice.')).toBe(true);
  });

  it('spares an authenticated sender of the own domains when asked, and only then', async () => {
    const before = await sendSuspicious('Internal before', 'Boss <boss@banners.test>');
    expect(before.action).toBe('delivered_banner');
    const input = inputOf(await current());
    input.senders.skip_internal = true;
    expect((await put(admin, input)).statusCode).toBe(200);
    const after = await sendSuspicious('Internal after', 'Boss <boss@banners.test>');
    expect(after).toMatchObject({ verdict: 'suspicious', action: 'delivered' });
    const { parsed } = await delivered(after);
    expect(parsed.subject).toBe('Internal after');
    expect(parsed.html).not.toContain('IT says');
    // An outside sender still gets it, and so does a forged own address (no DMARC pass from outside).
    expect((await sendSuspicious('Outside after')).action).toBe('delivered_banner');
    input.senders.skip_internal = false;
    expect((await put(admin, input)).statusCode).toBe(200);
  });

  it('spares a sender on an allow list when asked', async () => {
    // An allow entry of the anti-spam page: the suspicious link still counts, so the banner would go in.
    await t.db
      .insert(senderLists)
      .values({ tenantId, list: 'allow', value: 'partner.test', kind: 'domain', scope: 'anti_spam' });
    const before = await sendSuspicious('Partner before', 'Pat <pat@partner.test>');
    expect(before.action).toBe('delivered_banner');
    const input = inputOf(await current());
    input.senders.skip_allow_listed = true;
    expect((await put(admin, input)).statusCode).toBe(200);
    const after = await sendSuspicious('Partner after', 'Pat <pat@partner.test>');
    expect(after.action).toBe('delivered');
    expect((await sendSuspicious('Stranger after')).action).toBe('delivered_banner');
  });
});

describe('the preview', () => {
  it("lists the tenant's own held messages only, newest first", async () => {
    await buildQuarantinedMessage(t.db, otherTenantId, { subject: 'Theirs' });
    const held = await buildQuarantinedMessage(t.db, tenantId, { subject: 'Ours held', verdict: 'spam' });
    const res = await get(admin, `${URL}/samples`);
    expect(res.statusCode).toBe(200);
    const { items } = res.json() as BannerSamples;
    expect(items[0]).toMatchObject({ id: held.id, subject: 'Ours held', verdict: 'spam' });
    expect(items.map((i) => i.subject)).not.toContain('Theirs');
  });

  it('shows a held message as its recipient would get it: the banner in, nothing active or remote', async () => {
    const raw = Buffer.from(
      [
        'From: Shop <shop@outside.test>',
        'To: ana@banners.test',
        'Subject: Big sale',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<html><head><meta http-equiv="refresh" content="0;url=https://evil.example/"><base href="https://evil.example/"><script>alert(1)</script><style>p{color:#333}</style></head>',
        '<body onload="alert(2)"><p>Sale <a href="https://evil.example/buy" onclick="x()">now</a></p>',
        '<img src="https://tracker.example/pixel.gif" alt="pixel"><iframe src="https://evil.example/"></iframe>',
        '<form action="https://evil.example/post"><input name="q"></form><svg><a href="javascript:alert(3)">x</a></svg></body></html>',
      ].join('\r\n'),
    );
    const held = await buildQuarantinedMessage(t.db, tenantId, {
      subject: 'Big sale',
      verdict: 'spam',
      reasons: ['Spam score 9 (spam from 6): Moat 9'],
      recipient: 'ana@banners.test',
      raw,
      size: raw.length,
    });
    const settings = inputOf(await current());
    settings.verdicts.spam = {
      text: 'Probably an advert.',
      colour: 'grey',
      subject_tag: '[Ad]',
      banner_on_delivery: true,
    };
    const res = await preview(admin, { message_id: held.id, verdict: 'spam', settings });
    expect(res.statusCode).toBe(200);
    const p = res.json() as BannerPreview;
    expect(p).toMatchObject({ subject: '[Ad] Big sale', to: 'ana@banners.test', bannered: true });
    expect(p.from).toBe('Shop <shop@outside.test>');
    expect(p.html).toContain('Probably an advert. Why: the spam filters gave it a high spam score.');
    expect(p.html).toContain(BANNER_PALETTE.grey.background);
    expect(p.html).toContain(`Content-Security-Policy" content="default-src 'none'`);
    expect(p.html).toContain('Sale');
    expect(p.html).toContain('p{color:#333}');
    for (const gone of [
      '<script',
      'alert(',
      'onload',
      'onclick',
      'href=',
      'evil.example',
      'tracker.example',
      '<iframe',
      '<form',
      '<base',
      'refresh',
      '<svg',
    ])
      expect(p.html, gone).not.toContain(gone);
    // Nothing was saved by the preview.
    expect((await current()).verdicts.spam.text).toBe('');
  });

  it('says when the verdict would get no banner, and shows the built-in example when asked', async () => {
    const settings = inputOf(await current());
    settings.verdicts.spam.banner_on_delivery = false;
    const res = await preview(admin, { message_id: null, verdict: 'spam', settings });
    expect(res.statusCode).toBe(200);
    const p = res.json() as BannerPreview;
    expect(p).toMatchObject({ subject: 'Your invoice is ready', to: 'admin@banners.test', bannered: false });
    expect(p.html).toContain('Caution: this message is probably spam');
  });

  it("refuses another tenant's message (404) and bad input (400)", async () => {
    const theirs = await buildQuarantinedMessage(t.db, otherTenantId, { subject: 'Not yours' });
    const settings = inputOf(await current());
    expect((await preview(admin, { message_id: theirs.id, verdict: 'spam', settings })).statusCode).toBe(404);
    expect((await preview(admin, { message_id: 'nope', verdict: 'spam', settings })).statusCode).toBe(400);
    expect((await preview(admin, { message_id: null, verdict: 'malware', settings })).statusCode).toBe(400);
    expect((await preview(admin, { message_id: null, verdict: 'spam' })).statusCode).toBe(400);
  });
});
