import type { ImapFlow } from 'imapflow';
import { type RunningDovecot, startDovecot } from '../../apps/api/src/test/daemons/dovecot.ts';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';
import { dismissWelcome, expectNoSidewaysScroll, inEachLook, keepShot, SHOTS } from '../support/sweep.ts';

/**
 * Retraction (issue 36 §2) against Debian's Dovecot: mail Moat delivered is put in the mailboxes
 * as the organisation's mail server would; the admin connects Moat to the server through a master
 * user in Settings, retracts one message from its trace and a second by a search, and finds the
 * copies moved out of the inboxes and held in Quarantined Items as retracted.
 */
const MASTER = { user: 'moat-master', password: 'master secret 1' };
const PEOPLE = ['ann@acme.test', 'bob@acme.test'];
let dovecot: RunningDovecot;
let env: MoatWithMail;

test.beforeAll(async () => {
  dovecot = await startDovecot({
    users: PEOPLE.map((user) => ({ user, password: 'owner password' })),
    master: MASTER,
  });
  env = await startMoatWithMail();
});
test.afterAll(async () => {
  await env?.stop();
  await dovecot?.stop();
});

const asOwner = <T>(mailbox: string, fn: (c: ImapFlow) => Promise<T>) => dovecot.asOwner(mailbox, fn);

/** The folders of a mailbox holding a message with this subject, and how many. */
const whereIs = (mailbox: string, subject: string) =>
  asOwner(mailbox, async (c) => {
    const out: Record<string, number> = {};
    for (const folder of await c.list()) {
      const lock = await c.getMailboxLock(folder.path);
      try {
        const uids = (await c.search({ subject }, { uid: true })) || [];
        if (uids.length > 0) out[folder.path] = uids.length;
      } finally {
        lock.release();
      }
    }
    return out;
  });

/** Mail sent through Moat to both people, then put in their inboxes as their mail server would. */
async function deliver(subject: string, body: string) {
  const sent = await env.swaks([
    '--from',
    'billing@outside.test',
    '--to',
    PEOPLE.join(','),
    '--header',
    `Subject: ${subject}`,
    '--body',
    body,
  ]);
  expect(sent.code, sent.out).toBe(0);
  for (const person of PEOPLE) {
    const mail = await env.sink.waitFor(person, (m) => m.subject === subject);
    await asOwner(person, (c) => c.append('INBOX', mail.raw));
  }
}

test('an admin connects the mailboxes and pulls delivered mail back: one message from its trace, more by a search', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await deliver('Invoice 4471 overdue', 'Please pay today: https://pay.outside.test/invoice/4471');
  await deliver('Invoice 4472 overdue', 'And this one: https://pay.outside.test/invoice/4472');
  for (const person of PEOPLE) expect(await whereIs(person, 'Invoice 4471')).toEqual({ INBOX: 1 });

  const signIn = (await env.cli('auth:link', '--email', 'admin@acme.test')).stdout.trim().split('\n').at(-1)!;
  await page.goto(signIn.replace(/^https?:\/\/[^/]+/, env.moat.url));
  await expect(page).toHaveURL(/#\/dashboard$/);
  await dismissWelcome(page);

  // Settings → Mail flow: the mailbox connection, tested as one person, then saved.
  await page.goto(`${env.moat.url}/#/configuration/settings`);
  const connection = page.getByRole('region', { name: 'Mailbox connection (retraction)' });
  await expect(connection).toBeVisible();
  await connection.getByRole('textbox', { name: 'IMAP server' }).fill('127.0.0.1');
  // The encryption first: choosing it puts its usual port in the port field.
  await connection.getByLabel('Encryption').click();
  await page.getByRole('option', { name: 'None (this machine only)' }).click();
  await connection.getByRole('textbox', { name: 'Port' }).fill(String(dovecot.port));
  await connection.getByRole('textbox', { name: 'Master user', exact: true }).fill(MASTER.user);
  await connection.getByLabel("Master user's password").fill('a wrong password');
  await connection.getByRole('switch', { name: 'Retract mail from mailboxes' }).check();
  await connection.getByRole('button', { name: 'Save connection' }).click();
  await expect(connection.getByText('Connection saved.')).toBeVisible();
  await connection.getByRole('textbox', { name: 'Mailbox to log in as' }).fill('ann@acme.test');
  await connection.getByRole('button', { name: 'Test connection' }).click();
  await expect(connection.getByText('The login was refused')).toBeVisible();
  await connection.getByLabel("Master user's password").fill(MASTER.password);
  await connection.getByRole('button', { name: 'Save connection' }).click();
  await expect(connection.getByText('Connection saved.')).toBeVisible();
  await connection.getByRole('button', { name: 'Test connection' }).click();
  await expect(connection.getByText('Connected')).toBeVisible();
  await expectNoAxeViolations(page);

  // The first invoice, from its trace: every delivered copy, held as phishing.
  await page.goto(`${env.moat.url}/#/mail-explorer?q=Invoice%204471`);
  await page
    .getByRole('table', { name: 'Processed messages' })
    .getByRole('link', { name: 'Open the trace of Invoice 4471 overdue' })
    .first()
    .click();
  const card = page.getByRole('region', { name: 'Retract from the mailboxes' });
  await expect(card).toBeVisible();
  await card.getByRole('button', { name: 'Retract every copy' }).click();
  await expect(card.getByText('Retracting 2 copies from the mailboxes.')).toBeVisible();
  await card.getByRole('link', { name: 'See its progress' }).click();
  await expect(page.getByRole('heading', { name: 'Retract delivered mail' })).toBeVisible();
  await expect(page.getByTestId('retraction-row').first()).toContainText('2 of 2 retracted');
  for (const person of PEOPLE)
    await expect.poll(() => whereIs(person, 'Invoice 4471')).toEqual({ 'Moat Quarantine': 1 });

  // The second, by a search: the preview says what would go, then exactly that goes.
  await page.getByRole('textbox', { name: 'Sender or domain' }).fill('outside.test');
  await page.getByRole('textbox', { name: 'Link (web address or host)' }).fill('pay.outside.test');
  await page.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByText('4 delivered copies match; 2 of them were retracted already.')).toBeVisible();
  await page.getByRole('button', { name: 'Retract 2 copies' }).click();
  await expect(page.getByText('Retracting 2 copies from the mailboxes.')).toBeVisible();
  await expect(page.getByTestId('retraction-row').first()).toContainText('2 of 2 retracted');
  for (const person of PEOPLE)
    await expect.poll(() => whereIs(person, 'Invoice 4472')).toEqual({ 'Moat Quarantine': 1 });
  await expectNoAxeViolations(page);
  await inEachLook(page, async (slug, width) => {
    await expectNoSidewaysScroll(page);
    await keepShot(page, `${SHOTS}/retraction/retract-${slug}-${width}.png`);
  });
  await page.setViewportSize({ width: 1440, height: 900 });

  // Quarantined Items: the four copies held as retracted, restorable like any held message.
  await page.getByRole('link', { name: 'See retracted mail in Quarantined Items' }).click();
  await expect(page.getByText('Retracted', { exact: true })).toHaveCount(4);
});
