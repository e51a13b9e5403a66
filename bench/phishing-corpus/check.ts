/**
 * Checks the phishing corpus: every file reads (its X-Corpus-* fields), parses with the gateway's
 * own parser, and looks like mail a gateway receives (CRLF line ends only, a sender, a subject, a
 * Message-ID, a 2026 date, a body, recipients in the tenant). Prints the count per label and kind,
 * which is all anyone tuning rules should learn about the eval set.
 *
 *   node --import tsx bench/phishing-corpus/check.ts [dev|eval]
 */

import { parseMessage } from '../../apps/api/src/mail/parse.ts';
import { CORPUS_TENANT, type PhishingCorpusMessage, phishingCorpus } from './index.ts';

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;

async function problemsOf(message: PhishingCorpusMessage): Promise<string[]> {
  const problems: string[] = [];
  const text = message.raw.toString('latin1');
  if (/(?<!\r)\n/.test(text) || /\r(?!\n)/.test(text)) problems.push('a line end that is not CRLF');
  if (/^x-corpus-/im.test(text.slice(0, text.indexOf('\r\n\r\n'))))
    problems.push('an X-Corpus field left in the message');
  if (!IPV4.test(message.clientIp)) problems.push(`client address ${message.clientIp} is not IPv4`);
  if (!message.rcptTo.every((to) => CORPUS_TENANT.domains.includes(to.split('@')[1] ?? ''))) {
    problems.push(`a recipient outside the tenant: ${message.rcptTo.join(', ')}`);
  }
  const parsed = await parseMessage(message.raw);
  if (!parsed.fromAddress.includes('@')) problems.push('no From address');
  if (!parsed.subject) problems.push('no Subject');
  if (!parsed.messageId) problems.push('no Message-ID');
  if (parsed.date?.getUTCFullYear() !== 2026)
    problems.push(`Date ${parsed.date?.toISOString()} is not in 2026`);
  if (!parsed.text.trim() && !parsed.html) problems.push('no body');
  if (!/^Received: /m.test(text) && !/amazonses/.test(parsed.messageId ?? ''))
    problems.push('no Received chain');
  return problems;
}

const sets = (process.argv[2] ? [process.argv[2]] : ['dev', 'eval']) as Array<'dev' | 'eval'>;
let failures = 0;
for (const set of sets) {
  let messages: PhishingCorpusMessage[];
  try {
    messages = phishingCorpus(set);
  } catch (error) {
    console.error(`${set}: ${(error as Error).message}`);
    failures++;
    continue;
  }
  const kinds = new Map<string, number>();
  let attachments = 0;
  for (const message of messages) {
    const problems = await problemsOf(message);
    for (const problem of problems) console.error(`${message.id}: ${problem}`);
    failures += problems.length;
    attachments += (await parseMessage(message.raw)).attachments.length;
    const key = `${message.label} ${message.kind}`;
    kinds.set(key, (kinds.get(key) ?? 0) + 1);
  }
  const phishing = messages.filter((m) => m.label === 'phishing').length;
  console.log(
    `${set}: ${messages.length} messages, ${phishing} phishing, ${messages.length - phishing} ham, ${attachments} attachments`,
  );
  for (const [key, n] of [...kinds].sort()) console.log(`  ${n}  ${key}`);
}
if (failures > 0) {
  console.error(`${failures} problem(s)`);
  process.exit(1);
}
