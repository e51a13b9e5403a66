import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { and, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkClicks, mailLog, outbox } from '../../db/schema.ts';
import { parseMessage } from '../../mail/parse.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { BROWSER_VISIT as BROWSER } from '../../test/browser.ts';
import { startRbldnsd } from '../../test/daemons/rbldnsd.ts';
import { skipReason } from '../../test/daemons/spamd.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';
import { noDns } from '../../test/installation.ts';

const PUBLIC_URL = 'https://moat.test';

// Locally a missing rbldnsd skips these tests; in CI, startup fails naming the package.
const skip = skipReason('rbldnsd', 'rbldnsd');

describe.skipIf(skip !== null)(
  'click-time protection asks the URI blocklists at the click (a real rbldnsd)',
  () => {
    let rbldnsd: Awaited<ReturnType<typeof startRbldnsd>>;
    let t: Awaited<ReturnType<typeof buildTestApp>>;
    let smtp: ReturnType<typeof testSmtpIn>;
    let port: number;
    // The server's time, moved on past the blocklist answers' cache.
    let shiftMs = 0;

    beforeAll(async () => {
      rbldnsd = await startRbldnsd([
        { zone: 'uri.test', type: 'dnset', lines: ['known-bad.example :127.0.1.2:Phishing site'] },
      ]);
      t = await buildTestApp({
        dnsResolver: noDns as never,
        clock: { now: () => new Date(Date.now() + shiftMs) },
        env: {
          PUBLIC_URL,
          SMTP_HOSTNAME: 'mx.moat.test',
          URIBL_ZONES: 'uri.test=phishing',
          DNS_SERVERS: rbldnsd.server,
        },
      });
      const tenant = await buildTenant(t.db, { domain: 'acme.test' });
      await buildUser(t.db, tenant.id, { email: 'ana@acme.test' });
      const admin = await buildUser(t.db, tenant.id, { email: 'admin@acme.test', role: 'admin' });
      const session = await buildSession(t.db, admin);
      // Clean mail's links are rewritten too: the link below is clean when it arrives.
      const put = await t.app.inject({
        method: 'PUT',
        url: '/api/v1/click-time/settings',
        headers: { cookie: `${SESSION_COOKIE}=${session.token}`, ...CSRF },
        payload: { rewriteFlagged: true, rewriteClean: true, allowContinue: true },
      });
      expect(put.statusCode).toBe(200);
      smtp = testSmtpIn({ db: t.db, clock: t.app.clock, log: t.app.log });
      port = await smtp.listen(0, '127.0.0.1');
    });
    afterAll(async () => {
      await smtp?.close();
      await t?.close();
      await rbldnsd?.stop();
    });

    it('blocks a link whose host a URI blocklist lists since the message arrived, naming the list', async () => {
      await nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true }).sendMail({
        from: 'Bob <bob@partner.test>',
        to: 'ana@acme.test',
        subject: 'The shared file',
        html: '<p>Here is the file: <a href="https://files.later-bad.example/doc">open it</a></p>',
      });
      await t.app.services.gateway.processor.drain();
      const [log] = await t.db.select().from(mailLog).where(eq(mailLog.subject, 'The shared file'));
      expect(log).toMatchObject({ verdict: 'clean', action: 'delivered' });
      const [mail] = await t.db
        .select()
        .from(outbox)
        .where(eq(outbox.idempotencyKey, `${log!.inboundId}:ana@acme.test`));
      const html = (await parseMessage(Buffer.from(mail!.raw!))).html ?? '';
      const link = /href="https:\/\/moat\.test(\/l\/[^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
      const click = async () => {
        const res = await t.app.inject({ method: 'GET', url: link, headers: BROWSER });
        await t.app.services.clickTime.flush();
        return res;
      };

      // Not listed yet: the click opens the site at once.
      const first = await click();
      expect(first.statusCode).toBe(303);
      expect(first.headers.location).toBe('https://files.later-bad.example/doc');

      // The list adds the site's domain; once the answers Moat keeps (5 minutes) have aged, a click
      // is blocked, with the list's own reason.
      await rbldnsd.add(0, 'later-bad.example :127.0.1.2:Phishing kit seen today', 'later-bad.example');
      shiftMs = 6 * 60_000;
      const second = await click();
      expect(second.statusCode).toBe(303);
      const page = new URL(second.headers.location as string, PUBLIC_URL);
      const params = new URLSearchParams(page.hash.slice(page.hash.indexOf('?') + 1));
      expect(params.get('v')).toBe('malicious');
      const check = await t.app.inject({
        method: 'GET',
        url: '/api/v1/public/links/check',
        query: { t: params.get('t')!, u: params.get('u')! },
      });
      expect(check.json()).toMatchObject({ verdict: 'malicious', host: 'files.later-bad.example' });
      expect(check.json().reasons.join(' ')).toContain('Phishing kit seen today');
      const clicks = await t.db
        .select()
        .from(linkClicks)
        .where(
          and(eq(linkClicks.recipient, 'ana@acme.test'), eq(linkClicks.host, 'files.later-bad.example')),
        );
      expect(clicks.map((c) => c.outcome).sort()).toEqual(['blocked', 'redirected']);
    });
  },
);
