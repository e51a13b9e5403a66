import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import type { MoatWithMail } from './moat-with-mail.ts';
import { openSignInLink } from './sign-in-link.ts';
import type { ReceivedMail } from './smtp-sink.ts';

/**
 * The mail a spec needs on the console's security screens, sent through the gateway with swaks
 * and acted on the way a recipient does (the notice's links, the public pages, the emailed code).
 */
export function mailScenarios(env: MoatWithMail) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-scenarios-'));
  const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, env.moat.url);

  async function send(args: string[]) {
    const sent = await env.swaks(args);
    expect(sent.code, sent.out).toBe(0);
  }

  /** A clean message from bob@outside.test, waited for at the sink. */
  async function sendClean(to: string, subject: string, body = 'Lunch at noon?') {
    await send(['--from', 'bob@outside.test', '--to', to, '--header', `Subject: ${subject}`, '--body', body]);
    return env.sink.waitFor(to, (m) => m.subject === subject);
  }

  /**
   * A message with a program attached (update.exe): the default policy for a suspicious
   * attachment delivers the message without it. Returns the delivered (stripped) mail.
   */
  async function sendStripped(to: string, subject: string) {
    const exe = path.join(dir, 'update.exe');
    fs.writeFileSync(exe, Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200, 7)]));
    await send([
      ...['--from', 'bob@outside.test', '--to', to, '--header', `Subject: ${subject}`],
      ...['--body', 'Run the attached tool'],
      ...['--attach-type', 'application/octet-stream', '--attach-name', 'update.exe', '--attach', `@${exe}`],
    ]);
    return env.sink.waitFor(to, (m) => m.subject === subject);
  }

  /** A lookalike sender's message (acrne.test imitates acme.test): held. Returns the notice. */
  async function sendPhishing(to: string, subject: string) {
    await send([
      ...['--from', 'it@acrne.test', '--to', to, '--header', `Subject: ${subject}`],
      ...['--body', 'Sign in at http://acrne.test/login to keep your mail'],
    ]);
    return env.sink.waitFor(to, (m) => m.subject === `A message to you was held: ${subject}`);
  }

  /**
   * Opens a public action link and proves the address with the emailed code. (A proven address is
   * trusted by that browser afterwards: a second action of the same recipient asks for no code.)
   */
  async function proveAddress(page: Page, link: string, recipient: string) {
    await page.goto(local(link));
    await expect(page.getByRole('heading', { name: 'User Verification' })).toBeVisible();
    const since = env.sink.mails.length;
    await page.getByLabel('Enter your email address:').fill(recipient);
    await page.getByRole('button', { name: 'Send code' }).click();
    const mail = await env.sink.waitFor(recipient, (m) => m.subject === 'Your Moat verification code', since);
    await page
      .getByLabel('Enter the verification code that was sent to you')
      .fill(/^(\d{6})$/m.exec(mail.text)![1]!);
    await page.getByRole('button', { name: 'Verify' }).click();
  }

  const linkIn = (mail: ReceivedMail, pattern: RegExp) => {
    const link = pattern.exec(mail.text)?.[1];
    expect(link, mail.text).toBeDefined();
    return link!;
  };

  /** The recipient asks the admin to restore a held message, from its notice. */
  async function requestRestore(page: Page, notice: ReceivedMail, recipient: string, commentary: string) {
    await proveAddress(page, linkIn(notice, /(http\S+#\/email-actions\/restore-email\?\S+)/), recipient);
    await page.getByLabel('Enter a message to be sent with the email restore request').fill(commentary);
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(
      page.getByText('The admin has received your request, your email will return once approved.'),
    ).toBeVisible();
  }

  /** The recipient asks the admin for the removed attachments, from the delivered message. */
  async function requestOriginal(page: Page, delivered: ReceivedMail, recipient: string, commentary: string) {
    await proveAddress(
      page,
      linkIn(delivered, /(http\S+#\/email-actions\/restore-original\?\S+)/),
      recipient,
    );
    await page.getByLabel('Enter a message to be sent with attachment recover request').fill(commentary);
    await page.getByRole('button', { name: 'Submit' }).click();
    await expect(
      page.getByText('The admin has received your request, your attachment will return once approved.'),
    ).toBeVisible();
  }

  /** The recipient reports a held message as phishing from its notice. */
  async function reportPhishing(page: Page, notice: ReceivedMail, recipient: string) {
    await proveAddress(
      page,
      linkIn(notice, /Report this message as phishing to your administrator: (\S+)/),
      recipient,
    );
    await expect(
      page.getByText('Your administrator will review the message you reported as phishing.'),
    ).toBeVisible();
  }

  /** Signs the first admin in with a one-time link from the CLI. */
  async function signInAdmin(page: Page) {
    await openSignInLink(page, env.moat, 'admin@acme.test');
    await expect(page).toHaveURL(/#\/dashboard$/);
  }

  return {
    sendClean,
    sendStripped,
    sendPhishing,
    requestRestore,
    requestOriginal,
    reportPhishing,
    signInAdmin,
    cleanUp: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
