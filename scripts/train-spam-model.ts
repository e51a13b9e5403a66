/**
 * Trains the embedded anti-spam engine's starting model (apps/api/src/engines/spam/model.bin) on
 * the training part of the SpamAssassin public corpus's groups spam-1, easy-ham-1 and hard-ham-1
 * (never their held-out part, never spam-2 or easy-ham-2). Deterministic: the same corpus gives
 * the same file. Run: node --import tsx scripts/train-spam-model.ts
 *
 * With --evaluate it writes nothing and prints how well the engine alone does: four folds of the
 * training part (train on three, score the fourth), which is what every choice was tuned on, and
 * then, once, the held-out part scored by a model of the whole training part. "Caught" and
 * "flagged" are any verdict but clean at the default thresholds (4 and 6).
 *
 * What was tried (2026-12-02, issue 35; train-CV figures, 333 spam and 1,811 ham, goal at most
 * 9 ham flagged):
 * - before: 314 spam caught, 10 ham flagged (0.55 %), 6 of them hard ham the classifier rated
 *   above 0.99 on HTML tokens alone; held-out 153 of 167 caught, 8 of 939 ham flagged.
 * - no HTML attribute tokens (`html:td:width`): 310 caught, 9 flagged, and no ham above 0.997.
 *   Kept. No HTML tokens at all: 300 caught, 3 flagged (too many spam lost). No style tokens on
 *   top: no change (kept, they are few).
 * - Robinson's s 1 instead of 0.45: 312 caught / 9 flagged on one fold split, 310 / 10 on this
 *   script's: not kept (fewer ham flagged wins a tie). s 0.3: 307 / 6; x 0.4 or 0.6,
 *   a minimum strength 0.15–0.3, 50–300 clues, keeping single-message tokens or dropping those
 *   of two: each the same or worse.
 * - subject word pairs, body word pairs (305 caught: pairs repeat the words' evidence and crowd
 *   out other clues), capitalised-word tokens, dollar-amount tokens, de-obfuscated words
 *   ("v.i.a.g.r.a"), words up to 20 letters, Date-header shapes, text / link / subject size
 *   buckets: none caught more. Not kept. Message-ID shapes (`<9a9.9@…>`): one more spam caught
 *   on two fold splits, too little to trust, and modern mailers' IDs are another world: not kept.
 * - new structural rules (SUBJECT_PADDED_TAG, BODY_SHOUTING, DATE_NO_TIMEZONE, MESSAGE_ID_NO_AT,
 *   X_PRIORITY_HIGH): each fires on 2–45 training spam and at most 1 ham; they catch no more in
 *   the folds (the spam they fire on is already caught) but score spam higher for mail whose
 *   words the model does not know. Kept. An "answers an earlier message" ham rule moved nothing.
 * - the Bayes bands: a search over their points (and a weight on the rules) found at most one
 *   more catch at 9 ham flagged: the bands were left as they were.
 * - BAYES_70 at 3 instead of 4 (so a 70–90 % rating alone is no longer suspicious: short 2020s
 *   receipts are rated so by a model of 2002's mail): 298 caught, 6 flagged. Not kept; a tenant's
 *   own "not spam" marks fix those receipts (bench/learning.ts).
 * - 2026-12-05, other classifiers on the same folds and tokens (a scratch experiment, not kept):
 *   logistic regression (AdaGrad, L2) over the tokens and rules: 299 caught at 5-7 ham flagged,
 *   312 at 9; with character 4-grams of subject and body too: 304 at 5, 311 at 9; naive Bayes's
 *   summed log-odds or Robinson's geometric mean instead of Fisher's chi-squared: 292-312 at 5-9;
 *   each added to this score: at most 312 at 9. None beats the chi-squared Bayes and its rules.
 * After (--evaluate): training folds 310/333 caught (93.1 %), 9/1,811 ham flagged (0.50 %);
 * held-out 151/167 caught (90.4 %), 4/939 ham flagged (0.43 %, all hard ham); 0.26 ms of CPU a
 * message. Fewer ham flagged (0.9 % → 0.43 %) for fewer spam caught (91.6 % → 90.4 %): the
 * goal of 95 % caught at 0.5 % flagged is not met by the engine alone on this corpus. On mail of
 * another decade that nothing was tuned on (bench/learning-corpus, 200 spam and 200 ham of the
 * 2020s), the same trade: 136 → 133 spam caught, 40 → 34 ham flagged (all 34 short receipts).
 */
import fs from 'node:fs';
import { classify, MemoryTable } from '../apps/api/src/engines/spam/bayes.ts';
import { type CorpusMessage, corpusMessages } from '../apps/api/src/engines/spam/corpus.ts';
import { analyse, bayesRule } from '../apps/api/src/engines/spam/embedded.ts';
import { encodeModel, MODEL_FILE } from '../apps/api/src/engines/spam/model.ts';
import { DEFAULT_SPAM_THRESHOLDS } from '../apps/api/src/engines/types.ts';
import { linksOf } from '../apps/api/src/mail/gateway/links.ts';
import { parseMessage } from '../apps/api/src/mail/parse.ts';

interface Analysed {
  message: CorpusMessage;
  tokens: string[];
  keys: number[];
  rulePoints: number;
  cpuMs: number;
}

async function analysed(messages: CorpusMessage[]): Promise<Analysed[]> {
  const out: Analysed[] = [];
  for (const message of messages) {
    const parsed = await parseMessage(message.raw);
    const links = linksOf(parsed.html, parsed.text);
    const start = process.cpuUsage();
    const { tokens, keys, rules } = analyse({ parsed, links, raw: message.raw, auth: null });
    const used = process.cpuUsage(start);
    out.push({
      message,
      tokens,
      keys,
      rulePoints: rules.reduce((sum, r) => sum + r.score, 0),
      cpuMs: (used.user + used.system) / 1000,
    });
  }
  return out;
}

function trained(items: Analysed[]): MemoryTable {
  const table = new MemoryTable();
  for (const item of items) table.learn(new Set(item.keys), item.message.label);
  // A token seen in one message only says little and is most of the table: left out of the file.
  for (const [key, packed] of table.packed) {
    if (Math.floor(packed / 65536) + (packed % 65536) < 2) table.packed.delete(key);
  }
  return table;
}

/** The engine's score for one message with this model (what createEmbeddedSpam adds up). */
function scoreOf(item: Analysed, table: MemoryTable): { score: number; cpuMs: number } {
  const start = process.cpuUsage();
  const rule = bayesRule(classify(item.keys, [table]), item.tokens, item.keys);
  const used = process.cpuUsage(start);
  return { score: rule.score + item.rulePoints, cpuMs: item.cpuMs + (used.user + used.system) / 1000 };
}

function report(name: string, scored: Array<{ item: Analysed; score: number }>): void {
  const spam = scored.filter((s) => s.item.message.label === 'spam');
  const ham = scored.filter((s) => s.item.message.label === 'ham');
  const hard = ham.filter((s) => s.item.message.group === 'hard-ham-1');
  const { suspicious, spam: spamAt } = DEFAULT_SPAM_THRESHOLDS;
  const n = (list: typeof scored, at: number) => list.filter((s) => s.score >= at).length;
  const pc = (a: number, b: number) => `${((100 * a) / b).toFixed(1)} %`;
  console.log(
    `${name}: spam caught ${n(spam, suspicious)}/${spam.length} (${pc(n(spam, suspicious), spam.length)}, ` +
      `${pc(n(spam, spamAt), spam.length)} as spam); ham flagged ${n(ham, suspicious)}/${ham.length} ` +
      `(${((100 * n(ham, suspicious)) / ham.length).toFixed(2)} %), hard ham ${n(hard, suspicious)}/${hard.length}`,
  );
}

const train = await analysed(corpusMessages('train'));
if (process.argv.includes('--evaluate')) {
  const FOLDS = 4;
  const scored: Array<{ item: Analysed; score: number }> = [];
  for (let fold = 0; fold < FOLDS; fold++) {
    const table = trained(train.filter((_, i) => i % FOLDS !== fold));
    train.forEach((item, i) => {
      if (i % FOLDS === fold) scored.push({ item, score: scoreOf(item, table).score });
    });
  }
  report(`training part, ${FOLDS} folds`, scored);
  const table = trained(train);
  const heldOut = (await analysed(corpusMessages('held-out'))).map((item) => ({
    item,
    ...scoreOf(item, table),
  }));
  report('held-out part', heldOut);
  const cpu = heldOut.reduce((sum, s) => sum + s.cpuMs, 0) / heldOut.length;
  const worst = Math.max(...heldOut.map((s) => s.cpuMs));
  console.log(
    `CPU per message (tokens, rules, classifier; parsing not included): ${cpu.toFixed(3)} ms mean, ${worst.toFixed(1)} ms worst`,
  );
} else {
  const table = trained(train);
  const bytes = encodeModel(table);
  fs.writeFileSync(MODEL_FILE, bytes);
  console.log(
    `trained on ${train.length} messages (${table.nspam} spam, ${table.nham} ham): ` +
      `${table.packed.size} tokens, ${(bytes.length / 1024).toFixed(0)} KiB → ${MODEL_FILE}`,
  );
}
