import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, expectNoAxeViolations, test } from '../support/fixtures.ts';
import { type MoatWithMail, startMoatWithMail } from '../support/moat-with-mail.ts';

/**
 * Quarantine actions (issue 11 "Done means"): mail held by the gateway (swaks → Moat), released
 * in bulk from the browser (malware confirmed twice) and arriving at the SMTP sink, one deleted,
 * its original downloaded, and its sender blocked so that the next mail from it is held.
 */
let env: MoatWithMail;
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-actions-'));
const eicar = path.join(dir, 'eicar.com.txt');

const swaks = (args: string[]) => env.swaks(args);

/** Sends a message with an EICAR attachment from `from` to ana, and waits until it is held. */
async function sendHeld(from: string, subject: string) {
  const sent = await swaks([
    ...['--from', from, '--to', 'ana@acme.test', '--header', `Subject: ${subject}`],
    ...['--attach-type', 'text/plain', '--attach-name', 'eicar.com.txt', '--attach', `@${eicar}`],
  ]);
  expect(sent.code, sent.out).toBe(0);
  await env.sink.waitFor('ana@acme.test', (m) => m.subject === `A message to you was held: ${subject}`);
}

async function signIn(page: Page) {
  await page.goto(`${env.moat.url}/#/auth/login`);
  await page.getByLabel('Email').fill('admin@acme.test');
  await page.getByRole('textbox', { name: 'Password' }).fill('admin-password-1');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/#\/dashboard$/);
  await page.goto(`${env.moat.url}/#/user-interaction/quarantine-item`);
}

test.beforeAll(async () => {
  // Moat's start is slow on a busy machine.
  test.setTimeout(180_000);
  fs.writeFileSync(eicar, EICAR);
  env = await startMoatWithMail();
});
test.afterAll(async () => {
  await env?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('release in bulk, delete, download the original, block a sender and see its next mail held', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await sendHeld('mal@evil.test', 'Bulk A');
  await sendHeld('mal@evil.test', 'Bulk B');
  await sendHeld('other@evil.test', 'Delete me');

  await signIn(page);
  const table = page.getByRole('table');
  await expect(table.getByText('Bulk A')).toBeVisible();
  await table.getByRole('checkbox', { name: 'Select Bulk A' }).check();
  await table.getByRole('checkbox', { name: 'Select Bulk B' }).check();
  const bar = page.getByRole('group', { name: 'Actions on the selected messages' });
  await expect(bar.getByRole('status')).toHaveText('2 selected');
  await expectNoAxeViolations(page);

  // Both contain malware: the release asks for a second, explicit confirmation.
  await bar.getByRole('button', { name: 'Release 2' }).click();
  const dialog = page.getByRole('dialog', { name: 'Release 2 messages?' });
  const confirm = dialog.getByRole('button', { name: 'Release' });
  await expect(confirm).toBeDisabled();
  await dialog
    .getByRole('checkbox', { name: 'I understand: release 2 messages with malware as well' })
    .check();
  await expectNoAxeViolations(page);
  await confirm.click();
  await expect(page.getByText('2 messages released')).toBeVisible();
  await env.sink.waitFor('ana@acme.test', (m) => m.subject === 'Bulk A');
  await env.sink.waitFor('ana@acme.test', (m) => m.subject === 'Bulk B');

  // Download the original of one, then delete it: gone from the list.
  await page.getByRole('button', { name: 'Open Delete me' }).click();
  const drawer = page.getByRole('dialog', { name: 'Message preview' });
  const downloading = page.waitForEvent('download');
  await drawer.getByRole('link', { name: 'Download .eml' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('Delete me.eml');
  const eml = fs.readFileSync((await download.path())!, 'utf8');
  expect(eml).toContain('Subject: Delete me');
  expect(eml).toContain('filename="eicar.com.txt"');
  await drawer.getByRole('button', { name: 'Delete', exact: true }).click();
  const deleting = page.getByRole('dialog', { name: 'Delete 1 message?' });
  await deleting.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('1 message deleted')).toBeVisible();
  await expect(table.getByText('Delete me')).toHaveCount(0);

  // Block the sender from a message; its next mail (even a clean one) is held, not delivered.
  await page.getByRole('button', { name: 'Open Bulk A' }).click();
  await drawer.getByRole('button', { name: 'Block sender' }).click();
  const blocking = page.getByRole('dialog', { name: 'Block mal@evil.test?' });
  await expectNoAxeViolations(page);
  await blocking.getByRole('button', { name: 'Block sender' }).click();
  await expect(page.getByText('mal@evil.test is blocked')).toBeVisible();
  await drawer.getByRole('button', { name: 'Close' }).first().click();

  const again = await swaks([
    ...['--from', 'mal@evil.test', '--to', 'ana@acme.test', '--header', 'Subject: After block'],
    ...['--body', 'Just saying hello'],
  ]);
  expect(again.code, again.out).toBe(0);
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole('table').getByText('After block')).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Open After block' }).click();
  // The preview names the entry that held it: the block the admin just added from the message.
  await expect(
    drawer.getByText(
      /Blocked by exception sender mal@evil\.test \(added by admin@acme\.test: Blocked from a held message\)/,
    ),
  ).toBeVisible();
  expect(env.sink.mails.filter((m) => m.subject === 'After block')).toHaveLength(0);
  await expectNoAxeViolations(page);
});
