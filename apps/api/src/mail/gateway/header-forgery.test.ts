import net from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundMessages, mailLog, outbox } from '../../db/schema.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';

/**
 * Messages whose header says one thing to the checks and another to the mailbox: a second From,
 * a From of two addresses, a header hidden behind a bare CR or LF, a recipient routed on by its
 * local part. The tenant's domain publishes DMARC p=reject, so a forged From of it is phishing.
 */
const dns = async (name: string, rr: string) => {
  if (name === '_dmarc.acme.test' && rr === 'TXT') return [['v=DMARC1; p=reject']];
  if (name === 'acme.test' && rr === 'TXT') return [['v=spf1 -all']];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

let t: Awaited<ReturnType<typeof buildTestApp>>;
let smtp: ReturnType<typeof testSmtpIn>;
let port: number;

beforeAll(async () => {
  t = await buildTestApp({ dnsResolver: dns as never, env: { SMTP_HOSTNAME: 'moat.test' } });
  const tenant = await buildTenant(t.db, { domain: 'acme.test' });
  await buildUser(t.db, tenant.id, { email: 'ana@acme.test' });
  await buildUser(t.db, tenant.id, { email: 'ceo@acme.test' });
  smtp = testSmtpIn({ db: t.db, clock: t.app.clock, log: t.app.log });
  port = await smtp.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await smtp.close();
  await t.close();
});

/**
 * Speaks SMTP over a raw socket: each step is written after the reply to the one before (the
 * banner first), so the bytes go exactly as given. The replies, the banner's first.
 */
function converse(steps: Array<string | Buffer>): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const replies: string[] = [];
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      for (let end = buffer.search(/^\d{3} .*\r\n/m); end !== -1; end = buffer.search(/^\d{3} .*\r\n/m)) {
        const lineEnd = buffer.indexOf('\r\n', end) + 2;
        replies.push(buffer.slice(end, lineEnd).trim());
        buffer = buffer.slice(lineEnd);
        const next = steps[replies.length - 1];
        if (next !== undefined) socket.write(next);
        else if (replies.length === steps.length + 1) socket.end('QUIT\r\n');
      }
    });
    socket.on('close', () => resolve(replies));
    socket.on('error', reject);
  });
}

/**
 * One message of exactly these bytes (no line of it starts with a dot, the last ends in CRLF);
 * the reply to the end of its DATA.
 */
async function sendRaw(message: Buffer | string): Promise<string> {
  const bytes = Buffer.isBuffer(message) ? message : Buffer.from(message, 'latin1');
  // Ends with CRLF, so that `.` CRLF ends the DATA.
  expect(bytes.includes('\n.') || !bytes.subarray(-2).equals(Buffer.from('\r\n'))).toBe(false);
  const replies = await converse([
    'EHLO client.test\r\n',
    'MAIL FROM:<bob@example.net>\r\n',
    'RCPT TO:<ana@acme.test>\r\n',
    'DATA\r\n',
    Buffer.concat([bytes, Buffer.from('.\r\n')]),
  ]);
  return replies[5] ?? `no reply to the end of DATA: ${replies.join(' | ')}`;
}

/** A message to Ana: these header lines (CRLF between them), then a body. */
const message = (subject: string, headers: string[]) =>
  [
    ...headers,
    'To: ana@acme.test',
    `Subject: ${subject}`,
    'Date: Mon, 03 Mar 2025 09:00:00 +0000',
    `Message-ID: <${subject.replace(/\W+/g, '-')}@example.net>`,
    '',
    'Please wire the money today.',
    '',
  ].join('\r\n');

const storedCount = async () => (await t.db.select({ id: inboundMessages.id }).from(inboundMessages)).length;

/** The message refused with `reply`, and nothing of it stored. */
async function expectRefused(raw: Buffer | string, reply: RegExp) {
  const before = await storedCount();
  expect(await sendRaw(raw)).toMatch(reply);
  expect(await storedCount()).toBe(before);
}

const process = () => t.app.services.gateway.processor.drain();
const logOf = async (subject: string) =>
  (await t.db.select().from(mailLog).where(eq(mailLog.subject, subject)))[0];

describe('SMTP gateway: the header fields RFC 5322 allows once', () => {
  it('quarantines a single forged From of the tenant domain as phishing (the check the others would evade)', async () => {
    expect(await sendRaw(message('Forged CEO', ['From: CEO <ceo@acme.test>']))).toMatch(/^250 /);
    await process();
    expect(await logOf('Forged CEO')).toMatchObject({ verdict: 'phishing', dmarc: 'fail' });
  });

  it('refuses a message with two From fields, in either order, with 550 5.6.0 naming From, and stores nothing', async () => {
    const bob = 'From: Bob <bob@example.net>';
    const ceo = 'From: CEO <ceo@acme.test>';
    await expectRefused(message('Two From, Bob first', [bob, ceo]), /^550 5\.6\.0 .*\bFrom\b/);
    await expectRefused(message('Two From, CEO first', [ceo, bob]), /^550 5\.6\.0 .*\bFrom\b/);
    // Spelt another way: the parsers find the field by its name, whatever its case or spacing.
    await expectRefused(
      message('Two From, odd spelling', [bob, 'FROM : CEO <ceo@acme.test>']),
      /^550 5\.6\.0 /,
    );
    // Nor can one be folded away from the other's view: a continuation line belongs to its field.
    await expectRefused(
      message('Two From, folded', [bob, 'X-Note: see', ' below', 'from:', ' CEO <ceo@acme.test>']),
      /^550 5\.6\.0 .*\bFrom\b/,
    );
  });

  it('refuses a From of several addresses, and lets in one address whose display name has a comma', async () => {
    await expectRefused(
      message('Two in one From', ['From: Bob <bob@example.net>, CEO <ceo@acme.test>']),
      /^550 5\.6\.0 .*\bFrom\b/,
    );
    await expectRefused(
      message('Two in one From, folded', ['From: bob@example.net,', ' ceo@acme.test']),
      /^550 5\.6\.0 .*\bFrom\b/,
    );
    await expectRefused(
      message('A group in From', ['From: Staff: bob@example.net, ceo@acme.test;']),
      /^550 5\.6\.0 .*\bFrom\b/,
    );
    expect(
      await sendRaw(message('Comma in the name', ['From: "Lopez, Ana (Finance)" <ana.lopez@example.net>'])),
    ).toMatch(/^250 /);
  });

  it('refuses a second Sender, To, Cc, Bcc, Reply-To, Subject, Date, Message-ID, In-Reply-To or References', async () => {
    const from = 'From: Bob <bob@example.net>';
    for (const [name, value] of [
      ['Sender', 'bob@example.net'],
      ['To', 'ana@acme.test'],
      ['Cc', 'ana@acme.test'],
      ['Bcc', 'ana@acme.test'],
      ['Reply-To', 'bob@example.net'],
      ['Subject', 'Another subject'],
      ['Date', 'Tue, 04 Mar 2025 09:00:00 +0000'],
      ['Message-ID', '<another@example.net>'],
      ['In-Reply-To', '<earlier@example.net>'],
      ['References', '<earlier@example.net>'],
    ] as const) {
      // message() writes To, Subject, Date and Message-ID once already; the others twice here.
      const once = ['To', 'Subject', 'Date', 'Message-ID'].includes(name) ? [] : [`${name}: ${value}`];
      await expectRefused(
        message(`Twice ${name}`, [from, ...once, `${name}: ${value}`]),
        new RegExp(`^550 5\\.6\\.0 .*\\b${name}\\b`),
      );
    }
  });

  it('refuses a header line that starts with a no-break space, a form feed or a vertical tab', async () => {
    // mailauth folds such a line into the field above it (JavaScript's \s), mailparser does not.
    for (const space of ['\xa0', '\f', '\v']) {
      await expectRefused(
        message('Odd space', ['From: bob@example.net', `${space}<ceo@acme.test>`]),
        /^550 5\.6\.0 .*starts with/,
      );
    }
  });

  it('lets in fields that may repeat (Received, Comments, Keywords, Resent-*) and one of each of the others', async () => {
    const reply = await sendRaw(
      message('Repeatable fields', [
        'Received: from a.example.net by b.example.net; Mon, 03 Mar 2025 08:59:00 +0000',
        'Received: from c.example.net by a.example.net; Mon, 03 Mar 2025 08:58:00 +0000',
        'Resent-From: Carol <carol@example.net>',
        'Resent-From: Dan <dan@example.net>',
        'Comments: one',
        'Comments: two',
        'Keywords: a',
        'Keywords: b',
        'From: Bob <bob@example.net>',
        'Sender: Bob <bob@example.net>',
        'Reply-To: Bob <bob@example.net>, Carol <carol@example.net>',
        'Cc: Ana <ana@acme.test>, CEO <ceo@acme.test>',
        'In-Reply-To: <earlier@example.net>',
        'References: <first@example.net> <earlier@example.net>',
      ]),
    );
    expect(reply).toMatch(/^250 /);
    await process();
    expect(await logOf('Repeatable fields')).toMatchObject({ action: 'delivered' });
  });
});

describe('SMTP gateway: bare CR and bare LF', () => {
  const hidden =
    'X-Foo: a\rFrom: CEO <ceo@acme.test>\rAuthentication-Results: moat.test; spf=pass smtp.mailfrom=acme.test; dkim=pass header.d=acme.test; dmarc=pass header.from=acme.test';

  it('refuses a header hiding fields behind a bare CR with 550 5.6.0, and stores nothing', async () => {
    await expectRefused(
      message('Hidden behind CR', ['From: Bob <bob@example.net>', hidden]),
      /^550 5\.6\.0 Bare CR or LF in the message header/,
    );
  });

  it('refuses bare LF line ends in the header, and a CR or LF alone at its end', async () => {
    for (const raw of [
      'From: Bob <bob@example.net>\nFrom: CEO <ceo@acme.test>\r\nTo: ana@acme.test\r\nSubject: LF\r\n\r\nHi\r\n',
      'From: Bob <bob@example.net>\nTo: ana@acme.test\nSubject: All LF\n\nHi\r\n',
      'From: Bob <bob@example.net>\r\nSubject: LF ends the header\r\n\nHi\r\n',
      'From: Bob <bob@example.net>\r\nSubject: CR ends the header\r\r\nHi\r\n',
    ]) {
      await expectRefused(raw, /^550 5\.6\.0 Bare CR or LF in the message header/);
    }
  });

  it('refuses a bare CR in the body, where it would hide a MIME part from the scan', async () => {
    // The relay turns a bare CR into CRLF: the mailbox would find a boundary, and an attachment,
    // that the checks read as text of the first part.
    const body = [
      '--b',
      'Content-Type: text/plain',
      '',
      'See the invoice.\r--b',
      'Content-Type: application/octet-stream; name="invoice.exe"',
      'Content-Disposition: attachment; filename="invoice.exe"',
      '',
      'MZ fake program',
      '--b--',
      '',
    ].join('\r\n');
    await expectRefused(
      `${message('CR in the body', ['From: Bob <bob@example.net>', 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b"']).replace(/Please wire.*\r\n$/, '')}${body}`,
      /^550 5\.6\.0 Bare CR in the message/,
    );
  });

  it('still takes a message with a bare LF in its body (the relay and the checks read it alike)', async () => {
    expect(
      await sendRaw(
        'From: Bob <bob@example.net>\r\nTo: ana@acme.test\r\nSubject: LF body\r\n\r\nline one\nline two\r\n',
      ),
    ).toMatch(/^250 /);
  });

  it('delivers Bob a clean message with CRLF line ends and one From', async () => {
    expect(await sendRaw(message('Plain Bob', ['From: Bob <bob@example.net>']))).toMatch(/^250 /);
    await process();
    const log = await logOf('Plain Bob');
    expect(log).toMatchObject({ verdict: 'clean', action: 'delivered' });
    const [mail] = await t.db
      .select({ raw: outbox.raw })
      .from(outbox)
      .where(eq(outbox.idempotencyKey, `${log!.inboundId}:ana@acme.test`));
    expect(
      Buffer.from(mail!.raw!)
        .toString()
        .match(/^From:/gim),
    ).toHaveLength(1);
  });
});

describe('SMTP gateway: recipients routed on by their local part', () => {
  const rcpt = async (address: string) =>
    (
      await converse(['EHLO client.test\r\n', 'MAIL FROM:<bob@example.net>\r\n', `RCPT TO:<${address}>\r\n`])
    )[3];

  it('refuses a percent-hack or bang-path recipient with 553 5.1.3', async () => {
    expect(await rcpt('victim%evil.example@acme.test')).toMatch(/^553 5\.1\.3 /);
    expect(await rcpt('evil.example!victim@acme.test')).toMatch(/^553 5\.1\.3 /);
  });

  it('refuses a quoted local part holding @ or %', async () => {
    expect(await rcpt('"victim@evil.example"@acme.test')).toMatch(/^5\d\d /);
    expect(await rcpt('"victim%evil.example"@acme.test')).toMatch(/^5\d\d /);
    expect(await rcpt('"evil.example!victim"@acme.test')).toMatch(/^5\d\d /);
  });

  it('takes an ordinary recipient, sub-address included, and a source route as the address alone', async () => {
    expect(await rcpt('ana+news@acme.test')).toMatch(/^250 /);
    // RFC 5321 §3.6.1: a source route is accepted and ignored; the mail goes to the address itself.
    const replies = await converse([
      'EHLO client.test\r\n',
      'MAIL FROM:<bob@example.net>\r\n',
      'RCPT TO:<@evil.example:ana@acme.test>\r\n',
      'DATA\r\n',
      Buffer.from(`${message('Source route', ['From: Bob <bob@example.net>'])}.\r\n`),
    ]);
    const id = /queued as ([0-9a-f-]{36})/.exec(replies[5] ?? '')?.[1];
    expect(id, replies.join(' | ')).toBeDefined();
    const [row] = await t.db.select().from(inboundMessages).where(eq(inboundMessages.id, id!));
    expect(row!.rcptTo).toEqual(['ana@acme.test']);
  });
});
