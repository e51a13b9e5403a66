import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from '@moat/contracts/audit';
import { SPF_CHANGES, SPF_FAILURES, SPF_NODE_STATUSES, SPF_PROBLEMS } from '@moat/contracts/dmarc';
import { STORED_EXCEPTION_SCOPES } from '@moat/contracts/exceptions';
import { DECISION_ACTIONS, ENGINE_NAMES } from '@moat/contracts/security-events';
import { describe, expect, it } from 'vitest';
import {
  SPF_CHANGE_TEXT,
  SPF_FAILURE_TEXT,
  SPF_NODE_STATUS_TEXT,
  SPF_PROBLEM_TEXT,
} from '../features/dmarc/spf-labels';
import { SCOPE_LABEL } from '../features/exceptions/labels';
import { DECISION_ACTION_LABEL } from '../features/security-events/labels';
import { AUDIT_ACTION_LABEL, AUDIT_TARGET_LABEL } from '../features/system-logs/labels';
import base from '../locales/en.json';
import areas from '../locales/en-areas.json';
import { ENGINE_LABEL, engineText } from './engine-words';
import type { TranslationKey } from './i18n';

/** The English text of a key, from the two locale files the console loads. */
function english(key: TranslationKey): string | undefined {
  for (const texts of [base, areas] as unknown[]) {
    const found = key
      .split('.')
      .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], texts);
    if (typeof found === 'string') return found;
  }
  return undefined;
}

/**
 * Every closed list the console shows has words for each of its values: the maps are typed by the
 * lists (a new value is a compile error), and here each key is checked to have English that is
 * not the identifier itself.
 */
const LISTS: Array<[string, readonly string[], Record<string, TranslationKey>]> = [
  ['audit actions', AUDIT_ACTIONS, AUDIT_ACTION_LABEL],
  ['audit targets', AUDIT_TARGET_TYPES, AUDIT_TARGET_LABEL],
  ['engines', ENGINE_NAMES, ENGINE_LABEL],
  ['decision actions', DECISION_ACTIONS, DECISION_ACTION_LABEL],
  ['exception pages', STORED_EXCEPTION_SCOPES, SCOPE_LABEL],
  ['SPF problems', SPF_PROBLEMS, SPF_PROBLEM_TEXT],
  ['SPF changes', SPF_CHANGES, SPF_CHANGE_TEXT],
  ['SPF lookup failures', SPF_FAILURES, SPF_FAILURE_TEXT],
  ['SPF include states', SPF_NODE_STATUSES, SPF_NODE_STATUS_TEXT],
];

describe('the words of enumerations', () => {
  for (const [name, values, labels] of LISTS) {
    it(`has English for every one of the ${name}, never the identifier`, () => {
      expect(Object.keys(labels).sort()).toEqual([...values].sort());
      for (const value of values) {
        const text = english(labels[value]!);
        expect(text, `${name}: ${value}`).toBeTruthy();
        expect(text, `${name}: ${value}`).not.toMatch(/_|^[a-z]+\.[a-z]/);
        expect(text, `${name}: ${value}`).not.toBe(value);
      }
    });
  }

  it('names every engine of an event found by several', () => {
    const t = (key: TranslationKey) => english(key) ?? key;
    expect(engineText('anti_phishing,anti_spam', t, 'en')).toBe('Anti-Phishing and Anti-Spam');
    expect(engineText('moat_spam', t, 'en')).toBe("Moat's spam filter");
    expect(engineText('some_new_engine', t, 'en')).toBe('some new engine');
  });
});
