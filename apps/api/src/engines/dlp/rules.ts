import { DLP_PATTERN_MAX, type DlpDataType } from '@moat/contracts/dlp';
import { RE2JS, RE2JSSyntaxException, RE2Set } from 're2js';
import { KeywordMatcher, keywordForm } from './keywords.ts';

/** A tenant's enabled DLP rules, as the detector takes them. */
export interface DlpRuleSet {
  types: Array<{ type: DlpDataType; threshold: number; fileTypes: string[] }>;
  custom: Array<{
    id: string;
    name: string;
    kind: 'keywords' | 'regex';
    keywords: string[];
    pattern: string;
    threshold: number;
  }>;
}

interface CompiledCustomBase {
  id: string;
  name: string;
  threshold: number;
}
export type CompiledCustom =
  | (CompiledCustomBase & {
      kind: 'keywords';
      /** Every keyword in one linear-time matcher, whole words, any case. */
      words: KeywordMatcher;
      /** Each keyword as the tenant wrote it, by its index in the matcher. */
      spelling: string[];
    })
  | (CompiledCustomBase & { kind: 'regex'; expression: RE2JS });

/** The rules made ready to run: compiled once, used for every message of the tenant. */
export interface CompiledDlp {
  types: Array<{ type: DlpDataType; threshold: number; fileTypes: Set<string> }>;
  custom: CompiledCustom[];
  /**
   * Every custom expression in one automaton: one pass over a text says which of them match
   * anywhere in it, whatever their number; only those are then run for their matches. Null when
   * there are none, or too many to build together (each is then tried on its own).
   */
  expressions: { set: RE2Set; rules: CompiledCustom[] } | null;
}

/** Memory the combined automaton may take for its states (it falls back to a slower linear pass beyond). */
const SET_MEMORY = 2 * 1024 * 1024;

function expressionSet(custom: CompiledCustom[]): CompiledDlp['expressions'] {
  const rules = custom.filter((c) => c.kind === 'regex');
  if (rules.length === 0) return null;
  try {
    const set = new RE2Set(RE2Set.UNANCHORED, 0, SET_MEMORY);
    for (const rule of rules) set.add(rule.expression.pattern());
    set.compile();
    return { set, rules };
  } catch {
    return null;
  }
}

/**
 * The most instructions an expression may compile to: matching costs time in proportion to it
 * (on top of the text's length), and ordinary rules take a few dozen.
 */
const MAX_PROGRAM_SIZE = 2_000;

/** Text a pattern is tried on to see whether it can match nothing at all. */
const EMPTY_PROBES = ['', ' ', 'a', '0', 'a 0.'];

/** Whether the expression finds an empty match anywhere in a probe text. */
function matchesEmpty(expression: RE2JS): boolean {
  for (const probe of EMPTY_PROBES) {
    const matcher = expression.matcher(probe);
    if (matcher.find() && matcher.end() === matcher.start()) return true;
  }
  return false;
}

/**
 * Why a custom rule's expression cannot be used, in words for the console; null when it can.
 * Expressions are RE2 (linear-time: no look-around, no back-references), case-sensitive unless
 * they say `(?i)`, and may not match empty text (every position of a message would count).
 */
export function checkDlpPattern(pattern: string): string | null {
  if (pattern.trim() === '') return 'Enter an expression';
  if (pattern.length > DLP_PATTERN_MAX) return `The expression is longer than ${DLP_PATTERN_MAX} characters`;
  let expression: RE2JS;
  try {
    expression = RE2JS.compile(pattern);
  } catch (error) {
    if (!(error instanceof RE2JSSyntaxException)) return 'Not a valid expression';
    const description = error.getDescription();
    const at = error.getPattern() ?? '';
    if (/^\(\?<?[=!]/.test(at) || /^\\[1-9]/.test(at)) {
      return 'Look-around and back-references are not supported';
    }
    return `Not a valid expression: ${description}`;
  }
  if (expression.programSize() > MAX_PROGRAM_SIZE) return 'The expression is too complex';
  if (matchesEmpty(expression)) return 'The expression matches empty text';
  return null;
}

/**
 * One matcher finding any of the keywords as a whole word (not inside a longer word or number),
 * whatever the case, any run of white space standing for a space; the longest keyword at a
 * position wins, so "project falcon" wins over "project". Keywords match literally. Null when
 * there are none.
 */
export function keywordMatcher(keywords: string[]): KeywordMatcher | null {
  const matcher = new KeywordMatcher(keywords);
  return matcher.words.length === 0 ? null : matcher;
}

function compileCustom(rule: DlpRuleSet['custom'][number]): CompiledCustom | null {
  const base = { id: rule.id, name: rule.name, threshold: rule.threshold };
  if (rule.kind === 'keywords') {
    const words = keywordMatcher(rule.keywords);
    if (!words) return null;
    const written = new Map(rule.keywords.map((k) => [keywordForm(k.trim()), k.trim()]));
    const spelling = words.words.map((w) => written.get(w) ?? w);
    return { ...base, kind: 'keywords', words, spelling };
  }
  // A user's expression runs on RE2 only: a backtracking engine could be made to take exponential time.
  if (checkDlpPattern(rule.pattern) !== null) return null;
  return { ...base, kind: 'regex', expression: RE2JS.compile(rule.pattern) };
}

/**
 * The tenant's enabled rules compiled once (the caller keeps the result per tenant). A custom
 * rule whose expression no longer compiles, or without keywords, is left out rather than failing
 * every message.
 */
export function compileDlpRules(rules: DlpRuleSet): CompiledDlp {
  const custom = rules.custom.map(compileCustom).filter((c): c is CompiledCustom => c !== null);
  return {
    types: rules.types.map((t) => ({
      type: t.type,
      threshold: Math.max(1, t.threshold),
      fileTypes: new Set(t.fileTypes.map((f) => f.trim().replace(/^\./, '').toLowerCase()).filter(Boolean)),
    })),
    custom,
    expressions: expressionSet(custom),
  };
}
