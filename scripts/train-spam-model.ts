/**
 * Trains the embedded anti-spam engine's starting model (apps/api/src/engines/spam/model.bin) on
 * the training part of the SpamAssassin public corpus's groups spam-1, easy-ham-1 and hard-ham-1
 * (never their held-out part, never spam-2 or easy-ham-2). Deterministic: the same corpus gives
 * the same file. Run: npm run train:spam-model
 */
import fs from 'node:fs';
import { MemoryTable } from '../apps/api/src/engines/spam/bayes.ts';
import { corpusMessages } from '../apps/api/src/engines/spam/corpus.ts';
import { analyse } from '../apps/api/src/engines/spam/embedded.ts';
import { encodeModel, MODEL_FILE } from '../apps/api/src/engines/spam/model.ts';
import { linksOf } from '../apps/api/src/mail/gateway/links.ts';
import { parseMessage } from '../apps/api/src/mail/parse.ts';

const table = new MemoryTable();
const messages = corpusMessages('train');
for (const message of messages) {
  const parsed = await parseMessage(message.raw);
  const { keys } = analyse({
    parsed,
    links: linksOf(parsed.html, parsed.text),
    raw: message.raw,
    auth: null,
  });
  table.learn(new Set(keys), message.label);
}
// A token seen in one message only says little and is most of the table: left out of the file.
for (const [key, packed] of table.packed) {
  if (Math.floor(packed / 65536) + (packed % 65536) < 2) table.packed.delete(key);
}
const bytes = encodeModel(table);
fs.writeFileSync(MODEL_FILE, bytes);
console.log(
  `trained on ${messages.length} messages (${table.nspam} spam, ${table.nham} ham): ` +
    `${table.packed.size} tokens, ${(bytes.length / 1024).toFixed(0)} KiB → ${MODEL_FILE}`,
);
