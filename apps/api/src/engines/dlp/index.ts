import type { DlpDataType } from '@moat/contracts/dlp';
import type { DlpContent } from './content.ts';
import { countDigits, type Detector } from './detector.ts';
import { namesOfKind } from './files.ts';
import { keywordForm } from './keywords.ts';
import { maskShort } from './mask.ts';
import { findCaSins, findEsDnis, findFrNirs, findUkNinos, findUsSsns } from './national-ids.ts';
import { findIbans, findPaymentCards } from './numbers.ts';
import type { CompiledCustom, CompiledDlp } from './rules.ts';
import { findApiKeys, findPrivateKeys } from './secrets.ts';

export { type DlpContent, type DlpFile, dlpContentOf } from './content.ts';
export { type CompiledDlp, checkDlpPattern, compileDlpRules, type DlpRuleSet } from './rules.ts';

/** What one rule found in a message. */
export interface DlpFinding {
  type: DlpDataType | 'custom';
  ruleId: string | null;
  ruleName: string;
  /** Distinct values found (keywords: occurrences), at most MAX_COUNT. */
  count: number;
  /** Up to three distinct values, masked (keywords as the tenant wrote them, files by place). */
  samples: string[];
  /** `subject`, `body`, or the files' places where it was found. */
  places: string[];
}

/** The built-in types' names, as findings and the console show them. */
export const DLP_TYPE_NAMES: Record<DlpDataType, string> = {
  payment_card: 'Payment card number',
  iban: 'IBAN',
  us_ssn: 'US Social Security number',
  uk_nino: 'UK National Insurance number',
  ca_sin: 'Canadian Social Insurance Number',
  es_dni: 'Spanish DNI/NIE',
  fr_nir: 'French social security number',
  api_key: 'API key or token',
  private_key: 'Private key',
  file_type: 'File type',
  encrypted_file: 'Encrypted or uncheckable file',
};

/**
 * The detectors of text, each with the fewest digits a text must hold for it to find anything
 * there: a text with fewer is passed over without a scan.
 */
const TEXT_DETECTORS: Partial<Record<DlpDataType, { detect: Detector; minDigits: number }>> = {
  payment_card: { detect: findPaymentCards, minDigits: 14 },
  iban: { detect: findIbans, minDigits: 4 },
  us_ssn: { detect: findUsSsns, minDigits: 9 },
  uk_nino: { detect: findUkNinos, minDigits: 6 },
  ca_sin: { detect: findCaSins, minDigits: 9 },
  es_dni: { detect: findEsDnis, minDigits: 7 },
  fr_nir: { detect: findFrNirs, minDigits: 13 },
  api_key: { detect: findApiKeys, minDigits: 0 },
  private_key: { detect: findPrivateKeys, minDigits: 0 },
};

/**
 * A rule's count stops here: the threshold cannot be higher, and a message holding thousands of
 * values says no more than one holding a thousand.
 */
const MAX_COUNT = 1_000;
const MAX_SAMPLES = 3;
/** Text scanned per message, all places together. */
const MAX_SCANNED_CHARS = 8 * 1024 * 1024;

/** What one rule found so far. */
class Tally {
  readonly values = new Set<string>();
  readonly samples: string[] = [];
  readonly places = new Set<string>();
  count = 0;

  /**
   * One match at `place`. With `distinct`, a value counts once however often it is written, so a
   * quoted reply or a signature repeated in every message of a thread does not double the count.
   */
  add(place: string, value: string, sample: string, distinct = true): void {
    if (this.count >= MAX_COUNT) return;
    this.places.add(place);
    if (distinct) {
      if (this.values.has(value)) return;
      this.values.add(value);
    }
    this.count += 1;
    if (this.samples.length < MAX_SAMPLES && !this.samples.includes(sample)) this.samples.push(sample);
  }
}

/**
 * Unicode spaces (no-break, the en/em/thin… spaces, zero-width space, narrow no-break, medium
 * mathematical, ideographic): each is read as a plain space, so a number or a keyword split by
 * them is still found. Tabs are kept: they part a spreadsheet's cells, and a number in one cell
 * must not run on into the next (the card detector reads a tab between digit groups itself).
 */
const SEPARATORS = /[\u00a0\u2000-\u200b\u202f\u205f\u3000]/g;

/** The places of the message, their text bounded to MAX_SCANNED_CHARS together, separators as spaces. */
function placesOf(content: DlpContent): Array<{ place: string; text: string }> {
  const places: Array<{ place: string; text: string }> = [];
  let left = MAX_SCANNED_CHARS;
  for (const piece of [
    { place: 'subject', text: content.subject },
    { place: 'body', text: content.body },
    ...content.parts,
  ]) {
    if (left <= 0) break;
    if (!piece.text) continue;
    const text = piece.text.length > left ? piece.text.slice(0, left) : piece.text;
    left -= text.length;
    places.push({ place: piece.place, text: text.replace(SEPARATORS, ' ') });
  }
  return places;
}

/**
 * A custom rule's matches in one text: keyword occurrences, or distinct values of its expression.
 * `matching` holds the expressions the combined automaton found in the text (null: not known).
 */
function findCustom(
  rule: CompiledCustom,
  place: string,
  text: string,
  tally: Tally,
  matching: Set<CompiledCustom> | null,
  keywordText: () => string,
): void {
  if (rule.kind === 'keywords') {
    rule.words.find(keywordText(), (index) => {
      const spelled = rule.spelling[index]!;
      tally.add(place, spelled, spelled, false);
      return tally.count < MAX_COUNT;
    });
    return;
  }
  // A yes-or-no pass is much cheaper than finding each match: most texts stop here.
  if (matching ? !matching.has(rule) : !rule.expression.test(text)) return;
  const matcher = rule.expression.matcher(text);
  while (tally.count < MAX_COUNT && matcher.find()) {
    const value = matcher.group() ?? '';
    if (value) tally.add(place, value, maskShort(value));
  }
}

/** The built-in file rules: files of the listed types (by name or content), and locked files. */
function findFiles(content: DlpContent, compiled: CompiledDlp, tallies: Map<string, Tally>): void {
  for (const rule of compiled.types) {
    if (rule.type !== 'file_type' && rule.type !== 'encrypted_file') continue;
    const tally = tallies.get(rule.type)!;
    for (const file of content.files) {
      const hit =
        rule.type === 'encrypted_file'
          ? file.encrypted
          : rule.fileTypes.has(file.extension) ||
            (file.kind !== null && namesOfKind(file.kind).some((name) => rule.fileTypes.has(name)));
      if (hit) tally.add(file.place, file.place, file.place);
    }
    // What could not be checked (past a bound, an archive not opened) is held like a locked file.
    // (A caller that builds its content by hand may leave the list out: nothing is then unchecked.)
    if (rule.type === 'encrypted_file') {
      for (const place of content.unchecked) tally.add(place, place, place);
    }
  }
}

/**
 * What the tenant's rules find in a message: one finding per rule whose count reaches its
 * threshold, built-in types first (in the rules' order), then custom rules.
 */
export function findDlp(content: DlpContent, compiled: CompiledDlp): DlpFinding[] {
  const tallies = new Map<string, Tally>();
  for (const rule of compiled.types) tallies.set(rule.type, new Tally());
  for (const rule of compiled.custom) tallies.set(`custom:${rule.id}`, new Tally());
  for (const { place, text } of placesOf(content)) {
    const digits = countDigits(text, 14);
    for (const rule of compiled.types) {
      const detector = TEXT_DETECTORS[rule.type];
      if (!detector || digits < detector.minDigits) continue;
      const tally = tallies.get(rule.type)!;
      detector.detect(text, (value, sample) => tally.add(place, value, sample));
    }
    const expressions = compiled.expressions;
    const matching = expressions
      ? new Set(expressions.set.match(text).map((i) => expressions.rules[i]!))
      : null;
    // The text in the keywords' form (white space runs as one space, lower case), made once.
    let form: string | null = null;
    const keywordText = () => {
      form ??= keywordForm(text);
      return form;
    };
    for (const rule of compiled.custom) {
      findCustom(rule, place, text, tallies.get(`custom:${rule.id}`)!, matching, keywordText);
    }
  }
  findFiles(content, compiled, tallies);
  const findings: DlpFinding[] = [];
  const finding = (
    tally: Tally,
    threshold: number,
    base: Pick<DlpFinding, 'type' | 'ruleId' | 'ruleName'>,
  ) => {
    if (tally.count >= threshold) {
      findings.push({ ...base, count: tally.count, samples: tally.samples, places: [...tally.places] });
    }
  };
  for (const rule of compiled.types) {
    finding(tallies.get(rule.type)!, rule.threshold, {
      type: rule.type,
      ruleId: null,
      ruleName: DLP_TYPE_NAMES[rule.type],
    });
  }
  for (const rule of compiled.custom) {
    finding(tallies.get(`custom:${rule.id}`)!, rule.threshold, {
      type: 'custom',
      ruleId: rule.id,
      ruleName: rule.name,
    });
  }
  return findings;
}
