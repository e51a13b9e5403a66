import { describe, expect, it } from 'vitest';
import { flowMessageText } from '../features/email-actions/texts';
import { createI18n, type TranslationKey } from './i18n';
import { t } from './public-texts';

describe('texts of the public bundle (without i18next)', () => {
  const i18n = createI18n();
  it.each([
    ['emailActions.codeSent', { email: 'ana@acme.test' }],
    ['emailActions.wrongCode', { count: 2 }],
    ['emailActions.resendIn', { seconds: 30 }],
    ['validation.code_length', { length: 6 }],
    ['app.documentTitle', { title: 'Email Restore' }],
    ['emailActions.restoreEmail.title', {}],
    ['auth.login.invalidCredentials', {}],
    ['errors.referenceId', { reqId: 'r-1' }],
  ] as Array<[TranslationKey, Record<string, string | number>]>)(
    '%s reads as i18next has it',
    (key, values) => {
      expect(t(key, values)).toBe(i18n.t(key, values));
    },
  );

  it('shows an unknown key as itself and a server text as it came', () => {
    expect(t('overview.title' as TranslationKey)).toBe('overview.title');
    expect(flowMessageText({ text: '<b>as sent</b>' })).toBe('<b>as sent</b>');
  });
});
