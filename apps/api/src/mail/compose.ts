import { onFirstUse } from '../lib/on-first-use.ts';

/** nodemailer's MailComposer, loaded with the first message Moat writes, not at start (issue 14). */
export const mailComposer = onFirstUse(
  async () => (await import('nodemailer/lib/mail-composer/index.js')).default,
);
