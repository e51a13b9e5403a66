import { createHash } from 'node:crypto';
import os from 'node:os';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCommand } from '../../cli/commands.ts';
import { outbox, quarantineMessages, releases, restoreRequests, securityEvents } from '../../db/schema.ts';
import { systemClock } from '../../lib/clock.ts';
import { parseMessage } from '../../mail/parse.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { buildTenant } from '../../test/factories.ts';
import { holdMessage } from '../../test/hold.ts';
import { codeIn, Jar, lastMail } from '../../test/sign-in.ts';
import { createEmailCodesRepo } from '../email-codes/email-codes.repo.ts';
import { createEmailCodes } from '../email-codes/email-codes.service.ts';
import { createQuarantineRepo } from '../quarantine/quarantine.repo.ts';

const clock = new ManualClock();
let t: Awaited<ReturnType<typeof buildTestApp>>;
let domain: string;
let tenantId: string;
const raw = (to: string) =>
  Buffer.from(
    [
      'From: "Billing" <billing@supplier.example>',
      `To: ${to}`,
      'Subject: Invoice 4711',
      'Message-ID: <i4711@supplier.example>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="B"',
      '',
      '--B',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Invoice attached.',
      '--B',
      'Content-Type: application/pdf; name="i.pdf"',
      'Content-Disposition: attachment; filename="i.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      'JVBERi0xLjQKJSVFT0YK',
      '--B--',
      '',
    ].join('\r\n'),
  );

beforeAll(async () => {
  t = await buildTestApp({ clock });
  const tenant = await buildTenant(t.db);
  domain = tenant.domain;
  tenantId = tenant.id;
});
afterAll(() => t.close());

let n = 0;
async function hold(verdict: 'spam' | 'suspicious' | 'phishing' | 'malware', strip = false) {
  const recipient = `r${++n}@${domain}`;
  const { message } = await holdMessage(t.app, {
    raw: raw(recipient),
    recipient,
    verdict,
    stripAttachments: strip,
  });
  return { msg: message.publicId, recipient, id: message.id, raw: raw(recipient) };
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
const call = (jar: Jar, method: 'GET' | 'POST', url: string, payload?: object) =>
  t.app
    .inject({
      method,
      url,
      headers: CSRF,
      cookies: jar.cookies,
      remoteAddress: jar.ip,
      ...(payload ? { payload } : {}),
    })
    .then((res) => jar.take(res));

async function codeFor(jar: Jar, msg: string, recipient: string) {
  const res = await call(
    jar,
    'POST',
    `/api/v1/office365_emails/verify_recipient?${q({ msg, email: recipient })}`,
    { action_name: 'email_restore' },
  );
  expect(res.json()).toMatchObject({ status: 'ok', wait_time: 30 });
  return codeIn((await lastMail(t.db, recipient, 'recipient_verification')).text);
}

describe('GET /api/v1/{type}/{msg}/entity_exists', () => {
  it('answers true for a held message, false for unknown, wrong-type or expired ones', async () => {
    const { msg } = await hold('spam');
    const jar = new Jar();
    expect((await call(jar, 'GET', `/api/v1/office365_emails/${msg}/entity_exists`)).json()).toEqual({
      isExists: true,
    });
    expect((await call(jar, 'GET', `/api/v1/office365_emails/nope/entity_exists`)).json()).toEqual({
      isExists: false,
    });
    expect((await call(jar, 'GET', `/api/v1/google_mail/${msg}/entity_exists`)).json()).toEqual({
      isExists: false,
    });
    clock.advance(31 * 86_400_000);
    expect((await call(jar, 'GET', `/api/v1/office365_emails/${msg}/entity_exists`)).json()).toEqual({
      isExists: false,
    });
    clock.advance(-31 * 86_400_000);
  });
});

describe('POST /api/v1/{type}/identification_needed and verify_recipient', () => {
  it('needs identification, sends a code only to the recipient, the same answer to anyone else', async () => {
    const { msg, recipient } = await hold('spam');
    const jar = new Jar();
    const needed = await call(
      jar,
      'POST',
      `/api/v1/office365_emails/identification_needed?${q({ msg, mode: 'automatic' })}`,
      {
        action_name: 'email_restore',
      },
    );
    expect(needed.json()).toEqual({ status: true });
    const other = await call(
      jar,
      'POST',
      `/api/v1/office365_emails/verify_recipient?${q({ msg, email: `intruder@${domain}` })}`,
      {
        action_name: 'email_restore',
      },
    );
    const browser = new Jar();
    const real = await call(
      browser,
      'POST',
      `/api/v1/office365_emails/verify_recipient?${q({ msg, email: recipient })}`,
      {
        action_name: 'email_restore',
      },
    );
    expect(other.json()).toEqual(real.json());
    const toIntruder = await t.db
      .select()
      .from(outbox)
      .where(eq(outbox.toAddress, `intruder@${domain}`));
    expect(toIntruder).toHaveLength(0);
    expect((await lastMail(t.db, recipient, 'recipient_verification')).subject).toBe(
      'Your Moat verification code',
    );
    // The resend wait is the browser's own: the one that asked waits, another one would not.
    const again = await call(
      browser,
      'POST',
      `/api/v1/office365_emails/verify_recipient?${q({ msg, email: recipient })}`,
      {
        action_name: 'email_restore',
      },
    );
    expect(again.json().wait_time).toBeGreaterThan(0);
  });

  it('answers 404 for an unknown message and 400 for an invalid address', async () => {
    const { msg } = await hold('spam');
    const unknown = await call(
      new Jar(),
      'POST',
      `/api/v1/office365_emails/identification_needed?${q({ msg: 'x' })}`,
      {
        action_name: 'email_restore',
      },
    );
    expect(unknown.statusCode).toBe(404);
    const missing = await call(new Jar(), 'POST', '/api/v1/office365_emails/identification_needed', {
      action_name: 'email_restore',
    });
    expect(missing.statusCode).toBe(404);
    const bad = await call(
      new Jar(),
      'POST',
      `/api/v1/office365_emails/verify_recipient?${q({ msg, email: 'nope' })}`,
      {
        action_name: 'email_restore',
      },
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('Email is not valid');
  });
});

describe('restore policies, cached per node', () => {
  it('identification_needed follows a policy changed by a direct write on the next request, and one set through the CLI', async () => {
    // A tenant of its own, so no other test's policy is in play.
    const other = await buildTenant(t.db);
    const recipient = `p@${other.domain}`;
    const { message } = await holdMessage(t.app, { raw: raw(recipient), recipient, verdict: 'suspicious' });
    const needed = async () =>
      (
        await call(
          new Jar(),
          'POST',
          `/api/v1/office365_emails/identification_needed?${q({ msg: message.publicId })}`,
          { action_name: 'email_restore' },
        )
      ).json().status;
    expect(await needed()).toBe(true);
    await createQuarantineRepo(t.db).setRestorePolicy(other.id, 'suspicious', {
      mode: 'request',
      identificationRequired: false,
    });
    expect(await needed()).toBe(false);
    const res = await runCommand(
      [
        'quarantine:policy',
        '--tenant',
        other.id,
        '--verdict',
        'suspicious',
        '--mode',
        'request',
        '--identification',
        'on',
      ],
      { db: t.db, config: { publicUrl: 'https://moat.test' }, clock: systemClock, cwd: os.tmpdir() },
    );
    expect(res.exitCode).toBe(0);
    // Announced at commit; on PostgreSQL a notice can trail the commit by a moment.
    await vi.waitFor(async () => expect(await needed()).toBe(true), { timeout: 2_000, interval: 20 });
  });
});

describe('messages by link, cached per node', () => {
  const exists = async (msg: string) =>
    (await call(new Jar(), 'GET', `/api/v1/office365_emails/${msg}/entity_exists`)).json().isExists;

  it('answers for a message deleted by a direct write on the next request', async () => {
    const { msg, id } = await hold('spam');
    expect(await exists(msg)).toBe(true);
    await t.db.update(quarantineMessages).set({ state: 'deleted' }).where(eq(quarantineMessages.id, id));
    expect(await exists(msg)).toBe(false);
  });

  it('answers for a message changed in another transaction once its notice arrives', async () => {
    const { msg, id } = await hold('spam');
    expect(await exists(msg)).toBe(true);
    // Inside a transaction only the database's notice (migration 0013) tells the node.
    await t.db.transaction(async (tx) => {
      await tx
        .update(quarantineMessages)
        .set({ expiresAt: new Date(clock.now().getTime() - 1) })
        .where(eq(quarantineMessages.id, id));
    });
    await vi.waitFor(async () => expect(await exists(msg)).toBe(false), { timeout: 2_000, interval: 20 });
  });
});

describe('automatic restore (spam)', () => {
  it('a page load restores nothing; the right code restores once, byte for byte, and trusts the browser', async () => {
    const { msg, recipient, id, raw: original } = await hold('spam');
    const jar = new Jar();
    for (const url of [
      `/api/v1/office365_emails/restore?${q({ msg, rnd: '1' })}`,
      `/api/v1/office365_emails/restore/${msg}/status`,
      `/api/v1/office365_emails/${msg}/entity_exists`,
      `/api/v1/office365_emails/restore_original?${q({ msg })}`,
    ]) {
      await call(new Jar(), 'GET', url);
    }
    expect(await t.db.select().from(releases).where(eq(releases.messageId, id))).toHaveLength(0);

    const code = await codeFor(jar, msg, recipient);
    const wrong = await call(
      jar,
      'GET',
      `/api/v1/office365_emails/restore?${q({ msg, email: recipient, code: code === '000000' ? '111111' : '000000' })}`,
    );
    expect(wrong.json()).toMatchObject({ status: 'quarantined', attempts_left: 2 });
    const right = await call(
      jar,
      'GET',
      `/api/v1/office365_emails/restore?${q({ msg, email: recipient, code })}`,
    );
    expect(right.json()).toEqual({ status: 'restored', message: 'The email was restored to your mailbox.' });
    expect(jar.cookies.moat_rcpt).toBeDefined();
    for (let i = 0; i < 3; i++) {
      await call(jar, 'GET', `/api/v1/office365_emails/restore?${q({ msg })}`);
      await call(jar, 'POST', `/api/v1/office365_emails/restore?${q({ msg })}`, { commentary: '' });
    }
    const released = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.toAddress, recipient), eq(outbox.kind, 'release')));
    expect(released).toHaveLength(1);
    // Restored spam keeps the warning it would have had delivered with a banner; the message is
    // otherwise the one held: its text under the warning, its attachment byte for byte.
    const delivered = await parseMessage(Buffer.from(released[0]!.raw!));
    const held = await parseMessage(original);
    expect(Buffer.from(released[0]!.raw!).toString('latin1')).toMatch(
      /^X-Moat-Warning: Caution: this message is probably spam/m,
    );
    expect(delivered.text).toMatch(/^Caution: this message is probably spam\./);
    expect(delivered.text).toContain(held.text.trim());
    expect(delivered.attachments.map((a) => createHash('sha256').update(a.content).digest('hex'))).toEqual(
      held.attachments.map((a) => createHash('sha256').update(a.content).digest('hex')),
    );
    const status = await call(new Jar(), 'GET', `/api/v1/office365_emails/restore/${msg}/status`);
    expect(status.json().status).toBe('restored');
    const trusted = await call(jar, 'POST', `/api/v1/office365_emails/identification_needed?${q({ msg })}`, {
      action_name: 'email_restore',
    });
    expect(trusted.json()).toEqual({ status: false });
  });

  it('three wrong codes use up the attempts: then even the right code fails', async () => {
    const { msg, recipient, id } = await hold('spam');
    const jar = new Jar();
    const code = await codeFor(jar, msg, recipient);
    const wrongCode = code === '000000' ? '111111' : '000000';
    const left = [];
    for (let i = 0; i < 3; i++) {
      left.push(
        (
          await call(
            jar,
            'GET',
            `/api/v1/office365_emails/restore?${q({ msg, email: recipient, code: wrongCode })}`,
          )
        ).json().attempts_left,
      );
    }
    expect(left).toEqual([2, 1, 0]);
    const right = await call(
      jar,
      'GET',
      `/api/v1/office365_emails/restore?${q({ msg, email: recipient, code })}`,
    );
    expect(right.json()).toMatchObject({
      attempts_left: 0,
      message: 'You have reached the maximum number of attempts.',
    });
    expect(await t.db.select().from(releases).where(eq(releases.messageId, id))).toHaveLength(0);
  });
});

describe('codes of other addresses', () => {
  it('a code issued for another address never proves the recipient, even in the browser that asked for it', async () => {
    const { msg, id } = await hold('spam');
    const jar = new Jar();
    await call(
      jar,
      'POST',
      `/api/v1/office365_emails/verify_recipient?${q({ msg, email: `mallory@${domain}` })}`,
      {
        action_name: 'email_restore',
      },
    );
    // A stranger's code is stored but never sent: even guessed right it must not count. The test
    // issues one directly (bound to the browser, as the server binds it) to know it, as an
    // attacker never could.
    const strangerCode = await createEmailCodes({
      repo: createEmailCodesRepo(t.db),
      clock,
      pepper: t.serverKey.derive('email-codes'),
    }).issue('recipient', `${id}:${jar.cookies.moat_rcpt_client}`, `mallory@${domain}`);
    const sneaky = await call(
      jar,
      'GET',
      `/api/v1/office365_emails/restore?${q({ msg, email: `mallory@${domain}`, code: strangerCode })}`,
    );
    expect(sneaky.json()).toMatchObject({ status: 'quarantined', attempts_left: 0 });
    expect(await t.db.select().from(releases).where(eq(releases.messageId, id))).toHaveLength(0);
  });
});

describe('codes bound to the browser that asked for them (a stranger who has the link)', () => {
  const restore = (jar: Jar, msg: string, email: string, code: string) =>
    call(jar, 'GET', `/api/v1/office365_emails/restore?${q({ msg, email, code })}`);
  const ask = (jar: Jar, msg: string, email: string) =>
    call(jar, 'POST', `/api/v1/office365_emails/verify_recipient?${q({ msg, email })}`, {
      action_name: 'email_restore',
    });

  it("a stranger's wrong guesses with the recipient's address, from other browsers, do not use up the recipient's code", async () => {
    const { msg, recipient, id } = await hold('spam');
    const mine = new Jar();
    const code = await codeFor(mine, msg, recipient);
    const wrongCode = code === '000000' ? '111111' : '000000';
    for (const stranger of [new Jar(), new Jar()]) {
      for (let i = 0; i < 12; i++) {
        const res = await restore(stranger, msg, recipient, wrongCode);
        expect(res.json().status).toBe('quarantined');
      }
    }
    const right = await restore(mine, msg, recipient, code);
    expect(right.json()).toEqual({ status: 'restored', message: 'The email was restored to your mailbox.' });
    expect(await t.db.select().from(releases).where(eq(releases.messageId, id))).toHaveLength(1);
  });

  it('a new code asked for by another browser does not replace the code this browser asked for', async () => {
    const { msg, recipient } = await hold('spam');
    const mine = new Jar();
    const code = await codeFor(mine, msg, recipient);
    clock.advance(31_000);
    const stranger = new Jar();
    expect((await ask(stranger, msg, recipient)).json()).toMatchObject({ status: 'ok', wait_time: 30 });
    const right = await restore(mine, msg, recipient, code);
    expect(right.json()).toMatchObject({ status: 'restored' });
  });

  it('a code works only in the browser that asked for it', async () => {
    const { msg, recipient, id } = await hold('spam');
    const code = await codeFor(new Jar(), msg, recipient);
    const elsewhere = await restore(new Jar(), msg, recipient, code);
    expect(elsewhere.json()).toMatchObject({ status: 'quarantined', attempts_left: 0 });
    expect(await t.db.select().from(releases).where(eq(releases.messageId, id))).toHaveLength(0);
  });

  it('the browser cookie is HttpOnly and SameSite, and the resend wait is per browser', async () => {
    const { msg, recipient } = await hold('spam');
    const jar = new Jar();
    const res = await ask(jar, msg, recipient);
    const cookie = res.cookies.find((c) => c.name === 'moat_rcpt_client');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/v1' });
    expect((await ask(jar, msg, recipient)).json().wait_time).toBeGreaterThan(0);
    expect((await ask(new Jar(), msg, recipient)).json().wait_time).toBe(30);
  });

  it('mails one address at most 5 codes an hour per link and 10 over all its links: then 429 with Retry-After and when to ask again', async () => {
    const other = await buildTenant(t.db);
    const recipient = `limits@${other.domain}`;
    const links: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { message } = await holdMessage(t.app, { raw: raw(recipient), recipient, verdict: 'spam' });
      links.push(message.publicId);
    }
    const mails = async () =>
      (
        await t.db
          .select()
          .from(outbox)
          .where(and(eq(outbox.toAddress, recipient), eq(outbox.kind, 'recipient_verification')))
      ).length;
    for (let i = 0; i < 5; i++) expect((await ask(new Jar(), links[0]!, recipient)).statusCode).toBe(200);
    const perLink = await ask(new Jar(), links[0]!, recipient);
    expect(perLink.statusCode).toBe(429);
    expect(perLink.json().code).toBe('rate_limited');
    expect(perLink.json().message).toMatch(/You can ask for a new code in (60|59) minutes\./);
    expect(Number(perLink.headers['retry-after'])).toBeGreaterThan(3_500);
    // The same answer for an address that is not the recipient's: the limit tells nothing.
    for (let i = 0; i < 5; i++) await ask(new Jar(), links[0]!, `nobody@${other.domain}`);
    expect((await ask(new Jar(), links[0]!, `nobody@${other.domain}`)).statusCode).toBe(429);
    for (let i = 0; i < 5; i++) expect((await ask(new Jar(), links[1]!, recipient)).statusCode).toBe(200);
    const perAddress = await ask(new Jar(), links[2]!, recipient);
    expect(perAddress.statusCode).toBe(429);
    expect(await mails()).toBe(10);
    clock.advance(3_601_000);
    expect((await ask(new Jar(), links[2]!, recipient)).statusCode).toBe(200);
    expect(await mails()).toBe(11);
  });

  it('counts wrong guesses per link and browser: past 10 that browser waits, even with its right code', async () => {
    const { msg, recipient, id } = await hold('spam');
    const jar = new Jar();
    const code = await codeFor(jar, msg, recipient);
    for (let i = 0; i < 11; i++) await restore(jar, msg, `x${i}@${domain}`, '000000');
    const blocked = await restore(jar, msg, recipient, code);
    expect(blocked.json()).toMatchObject({ status: 'quarantined', attempts_left: 0 });
    expect(await t.db.select().from(releases).where(eq(releases.messageId, id))).toHaveLength(0);
  });
});

describe('request mode (suspicious) and phishing requests', () => {
  it('the code shows the request form; the request needs a message, is stored sanitised, and is not doubled', async () => {
    const { msg, recipient, id } = await hold('suspicious');
    const jar = new Jar();
    const code = await codeFor(jar, msg, recipient);
    const form = await call(
      jar,
      'GET',
      `/api/v1/office365_emails/restore?${q({ msg, email: recipient, code, mode: 'request' })}`,
    );
    expect(form.json()).toMatchObject({ status: 'quarantined' });
    const empty = await call(jar, 'POST', `/api/v1/office365_emails/restore?${q({ msg })}`, {
      commentary: '  <b> </b> ',
    });
    expect(empty.statusCode).toBe(400);
    const sent = await call(jar, 'POST', `/api/v1/office365_emails/restore?${q({ msg })}`, {
      commentary: '<b>I need</b> this invoice',
    });
    expect(sent.json()).toEqual({
      status: 'requested',
      message: 'The admin has received your request, your email will return once approved.',
    });
    await call(jar, 'POST', `/api/v1/office365_emails/restore?${q({ msg })}`, { commentary: 'again' });
    const requests = await t.db.select().from(restoreRequests).where(eq(restoreRequests.messageId, id));
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      commentary: 'I need this invoice',
      status: 'requested',
      mode: 'request',
      kind: 'email',
    });
    expect(
      (await call(new Jar(), 'GET', `/api/v1/office365_emails/restore/${msg}/status`)).json().status,
    ).toBe('requested');
  });

  it('refuses a request from a browser that has not proved the recipient', async () => {
    const { msg } = await hold('phishing');
    const res = await call(
      new Jar(),
      'POST',
      `/api/v1/office365_emails/phish_request_restore?${q({ msg })}`,
      { commentary: 'please' },
    );
    expect(res.statusCode).toBe(403);
  });

  it('never restores malware: 405', async () => {
    const { msg, recipient } = await hold('malware');
    const jar = new Jar();
    const code = await codeFor(jar, msg, recipient);
    const res = await call(
      jar,
      'GET',
      `/api/v1/office365_emails/restore?${q({ msg, email: recipient, code })}`,
    );
    expect(res.statusCode).toBe(405);
    expect(res.json().message).toBe('This message can not be restored. Please contact support');
  });
});

describe('restore_original', () => {
  it('restores the original attachments once in automatic mode', async () => {
    await createQuarantineRepo(t.db).setRestorePolicy(tenantId, 'spam', {
      mode: 'automatic',
      identificationRequired: true,
    });
    const { msg, recipient, raw: original } = await hold('spam', true);
    const stripped = await lastMail(t.db, recipient, 'stripped_delivery');
    expect(Buffer.from(stripped.raw!).toString()).not.toContain('JVBERi0xLjQKJSVFT0YK');
    const jar = new Jar();
    const code = await codeFor(jar, msg, recipient);
    const res = await call(
      jar,
      'GET',
      `/api/v1/office365_emails/restore_original?${q({ msg, email: recipient, code, mode: 'automatic' })}`,
    );
    expect(res.json()).toEqual({ status: 'restored', message: 'Attachment restored successfully!' });
    await call(jar, 'GET', `/api/v1/office365_emails/restore_original?${q({ msg })}`);
    const sent = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.toAddress, recipient), eq(outbox.kind, 'release_original')));
    expect(sent).toHaveLength(1);
    expect(Buffer.from(sent[0]!.raw!).equals(original)).toBe(true);
  });

  it('asks the admin in phish_request_restore mode (code ap) and 404s for a message that kept its attachments', async () => {
    const { msg, recipient } = await hold('phishing', true);
    const jar = new Jar();
    const code = await codeFor(jar, msg, recipient);
    await call(
      jar,
      'GET',
      `/api/v1/office365_emails/restore_original?${q({ msg, email: recipient, code, mode: 'phish_request_restore' })}`,
    );
    const res = await call(
      jar,
      'POST',
      `/api/v1/office365_emails/restore_original?${q({ msg, email: recipient, code: 'ap' })}`,
      {
        commentary: 'It is our supplier',
      },
    );
    expect(res.json()).toEqual({
      status: 'requested',
      message: 'The admin has received your request, your attachment will return once approved.',
    });
    const held = await hold('spam');
    const notStripped = await call(
      new Jar(),
      'GET',
      `/api/v1/office365_emails/restore_original?${q({ msg: held.msg })}`,
    );
    expect(notStripped.statusCode).toBe(404);
    expect(notStripped.json().message).toBe("Can't find attachment to restore");
  });
});

describe('GET /api/v1/{type}/user_response (action page)', () => {
  it('the notification links to the action; only a proven recipient performs it, once', async () => {
    const { recipient, id } = await hold('suspicious');
    const mail = await lastMail(t.db, recipient, 'quarantine_notice');
    const actionId = /email-actions\/action\?type=office365_emails&id=([A-Za-z0-9_-]{32})/.exec(
      mail.text,
    )?.[1];
    expect(actionId).toBeDefined();
    const jar = new Jar();
    const needed = await call(
      jar,
      'POST',
      `/api/v1/office365_emails/identification_needed?${q({ id: actionId! })}`,
      {
        action_name: 'email_action',
      },
    );
    expect(needed.json()).toEqual({ status: true });
    expect(
      (await call(jar, 'GET', `/api/v1/office365_emails/user_response?${q({ id: actionId! })}`)).statusCode,
    ).toBe(403);
    const sent = await call(
      jar,
      'POST',
      `/api/v1/office365_emails/verify_recipient?${q({ id: actionId!, email: recipient })}`,
      {
        action_name: 'email_action',
      },
    );
    expect(sent.json().status).toBe('ok');
    const code = codeIn((await lastMail(t.db, recipient, 'recipient_verification')).text);
    const wrong = await call(
      jar,
      'GET',
      `/api/v1/office365_emails/user_response?${q({ id: actionId!, email: recipient, code: code === '000000' ? '111111' : '000000' })}`,
    );
    expect(wrong.json()).toEqual({
      success: false,
      primary_text: 'The code is not valid.',
      secondary_text: '',
      attempts_left: 2,
    });
    const right = await call(
      jar,
      'GET',
      `/api/v1/office365_emails/user_response?${q({ id: actionId!, email: recipient, code })}`,
    );
    expect(right.json()).toMatchObject({
      success: true,
      primary_text: 'Requested action performed successfully',
    });
    await call(jar, 'GET', `/api/v1/office365_emails/user_response?${q({ id: actionId! })}`);
    const reports = await t.db
      .select()
      .from(securityEvents)
      .where(and(eq(securityEvents.messageId, id), eq(securityEvents.engine, 'recipient')));
    expect(reports).toHaveLength(1);
    const unknown = await call(
      new Jar(),
      'GET',
      `/api/v1/office365_emails/user_response?${q({ id: 'nope' })}`,
    );
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toBe("Can't find message to process");
  });
});

describe('the recipient notification', () => {
  it('tells what was held and why, and links to the restore page with the opaque id', async () => {
    const { msg, recipient } = await hold('suspicious');
    const mail = await lastMail(t.db, recipient, 'quarantine_notice');
    expect(mail.subject).toBe('A message to you was held: Invoice 4711');
    // The sender's address is theirs to choose: shown, but not as a link a mail program would make.
    expect(mail.text).toContain('From: Billing <billing@supplier[.]example>');
    expect(mail.text).toContain(
      `/#/email-actions/restore-email?type=office365_emails&msg=${msg}&mode=request`,
    );
    expect(msg).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});

describe('public limits', () => {
  it('limits each call per message link and address: a 61st identification_needed a minute is 429, other links and addresses go on', async () => {
    const { msg } = await hold('spam');
    const { msg: other } = await hold('spam');
    const jar = new Jar();
    const ask = (j: Jar, link: string) =>
      call(j, 'POST', `/api/v1/office365_emails/identification_needed?${q({ msg: link })}`, {
        action_name: 'email_restore',
      });
    for (let i = 0; i < 60; i++) expect((await ask(jar, msg)).statusCode).toBe(200);
    const limited = await ask(jar, msg);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe('rate_limited');
    expect((await ask(jar, other)).statusCode).toBe(200);
    expect((await ask(new Jar(), msg)).statusCode).toBe(200);
  });

  it('limits all public calls of one address together only generously (3,000 a minute)', async () => {
    const jar = new Jar();
    const { msg } = await hold('spam');
    const seen = vi.spyOn(t.app.services.counters, 'hitMany');
    await call(jar, 'GET', `/api/v1/office365_emails/${msg}/entity_exists`);
    expect(seen.mock.calls.some(([keys]) => keys[0]?.key === `public-address:${jar.ip}`)).toBe(true);
    seen.mockResolvedValueOnce([
      { count: 3_001, ttlMs: 20_000 },
      { count: 1, ttlMs: 60_000 },
    ]);
    const limited = await call(jar, 'GET', `/api/v1/office365_emails/${msg}/entity_exists`);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('20');
    seen.mockRestore();
  });
});
