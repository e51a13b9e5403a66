import type MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { packageOnFirstUse } from '../lib/on-first-use.ts';

const composerModule = packageOnFirstUse<{ default: typeof MailComposer }>(
  'nodemailer/lib/mail-composer/index.js',
);

/** nodemailer's MailComposer, loaded with the first message Moat writes, not at start (issue 14). */
export async function mailComposer(): Promise<typeof MailComposer> {
  return (await composerModule()).default;
}
